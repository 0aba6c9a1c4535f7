"""Files as answers in an S3-compatible bucket (django-storages), as scale-out stores them.

A local S3 server (moto in server mode) is started by the test on a free port; the storage is
the one `FILES_S3_BUCKET` configures (`playground.settings.answer_files_storage`).
"""

import hashlib
from datetime import timedelta

import boto3
import httpx
import pytest
from django.test import Client
from django.utils import timezone
from moto.server import ThreadedMotoServer

from elicitation.models import AnswerFile
from elicitation.uploads import remove_unsent
from playground.settings import answer_files_storage
from tests.support.api_support import ApiClient
from tests.support.live_server import LiveServer, free_port
from tests.support.runtime_helpers import said
from tests.test_answer_files import LOG, asked, downloaded, png, post, upload
from tests.test_scaleout import (
    USERNAME,
    Person,
    PostgresDatabase,
    clear_redis_prefix,
    prepare,
    require_services,
    scaleout_env,
)

pytestmark = pytest.mark.django_db(transaction=True)
BUCKET = "playground-answer-files"
PUBLIC = (
    "http://acs.amazonaws.com/groups/global/AllUsers",
    "http://acs.amazonaws.com/groups/global/AuthenticatedUsers",
)


@pytest.fixture(scope="module")
def s3_server():
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=free_port(), verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


# Moto accepts any key; real ones would come the same way, from the environment.
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


def bucket_env(s3_server: str) -> dict[str, str]:
    return {
        "FILES_S3_BUCKET": BUCKET,
        "FILES_S3_ENDPOINT_URL": s3_server,
        "FILES_S3_REGION": "us-east-1",
        **CREDENTIALS,
    }


@pytest.fixture
def bucket(s3_server, settings, monkeypatch):
    """An empty bucket, and the "answer_files" storage pointed at it as the settings do."""
    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    environ = bucket_env(s3_server)
    settings.STORAGES = {**settings.STORAGES, "answer_files": answer_files_storage(environ)}
    client = boto3.client("s3", endpoint_url=s3_server, region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    yield client
    for key in objects(client):
        client.delete_object(Bucket=BUCKET, Key=key)
    client.delete_bucket(Bucket=BUCKET)


@pytest.fixture
def client(client, alice):
    client.force_login(alice)
    return client


def objects(s3) -> set[str]:
    return {item["Key"] for item in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])}


def test_the_settings_choose_the_bucket_only_when_one_is_named():
    assert answer_files_storage({})["BACKEND"] == "django.core.files.storage.FileSystemStorage"
    chosen = answer_files_storage({"FILES_S3_BUCKET": "b", "AWS_SECRET_ACCESS_KEY": "s3cr3t"})
    assert chosen["BACKEND"] == "storages.backends.s3.S3Storage"
    assert chosen["OPTIONS"]["querystring_auth"] is False  # never a presigned link
    assert "s3cr3t" not in str(chosen)  # credentials stay in the environment, for boto3


def test_an_answer_file_lives_in_the_bucket_privately_and_is_served_by_our_view(
    client, alice, bob, bucket
):
    conversation, part = asked(client, alice)
    response = post(client, part, log=upload("run-1412.log", LOG), ticket="OPS-7")
    assert response.status_code == 200, response.content
    part.refresh_from_db()
    log = part.response["content"]["log"]
    assert log["sha256"] == hashlib.sha256(LOG).hexdigest()
    assert objects(bucket) == {log["file"]}  # the bytes are in the bucket, named by the id
    assert bucket.get_object(Bucket=BUCKET, Key=log["file"])["Body"].read() == LOG
    grants = bucket.get_object_acl(Bucket=BUCKET, Key=log["file"])["Grants"]
    assert [grant["Permission"] for grant in grants] == ["FULL_CONTROL"]  # the owner only
    assert not [grant for grant in grants if grant["Grantee"].get("URI") in PUBLIC]
    # The agent read it through its reference (ctx.open_file), from the bucket.
    assert said(conversation)[-1] == (
        f"Read run-1412.log ({len(LOG)} bytes, text/plain): ERROR deploy failed at step 3"
    )
    # The owner downloads it through our view, as from the disk; nobody else can.
    download = client.get(f"/files/{log['file']}")
    assert download.status_code == 200 and downloaded(download) == LOG
    assert download["Content-Type"] == "text/plain"
    assert download["Content-Disposition"].startswith("attachment;")
    assert download["X-Content-Type-Options"] == "nosniff"
    assert download["Content-Security-Policy"] == "default-src 'none'; sandbox"
    assert s3_link_free(download)
    other = Client()
    other.force_login(bob)
    assert other.get(f"/files/{log['file']}").status_code == 404


def s3_link_free(response) -> bool:
    """No redirect to the bucket: the bytes come through our origin (the callers compare them
    with the file's, so no link to the bucket is sent in their place either)."""
    return "Location" not in response


def test_an_image_and_its_preview_both_live_in_the_bucket(client, alice, bucket):
    _, part = asked(client, alice)
    post(client, part, log=upload("a.log", LOG), screenshots=upload("s.png", png(), "image/png"))
    part.refresh_from_db()
    shot = part.response["content"]["screenshots"][0]["file"]
    log = part.response["content"]["log"]["file"]
    assert objects(bucket) == {log, shot, f"{shot}.preview.png"}
    preview = client.get(f"/files/{shot}/preview")
    assert preview.status_code == 200 and preview["Content-Type"] == "image/png"
    assert downloaded(preview).startswith(b"\x89PNG")


def test_uploads_never_sent_are_removed_from_the_bucket_by_the_sweep(client, alice, bucket):
    _, part = asked(client, alice)
    post(client, part, log=upload("big.log", b"x" * 5000), screenshots=upload("s.png", png()))
    assert AnswerFile.objects.count() == 1 and len(objects(bucket)) == 2  # the image + preview
    assert remove_unsent() == []  # the question still waits: kept for now
    AnswerFile.objects.update(created_at=timezone.now() - timedelta(days=2))
    assert len(remove_unsent()) == 1
    assert not AnswerFile.objects.exists() and objects(bucket) == set()


def test_the_quota_counts_files_in_the_bucket(client, alice, bucket, settings):
    _, part = asked(client, alice)
    assert post(client, part, log=upload("a.log", b"x" * 50)).status_code == 200
    settings.FILES_QUOTA_BYTES = 60
    _, second = asked(client, alice)
    response = post(client, second, log=upload("b.log", LOG))
    assert response.status_code == 422
    assert "past your 60 bytes quota (you use 50 bytes)" in response.content.decode()
    assert len(objects(bucket)) == 1


def test_an_external_agent_fetches_a_file_from_the_bucket_with_its_token(alice, bob, bucket):
    api = ApiClient(alice)
    part_id = api.post(f"/conversations/{api.open_conversation()}/requests", INVOICE).json()["id"]
    person = Client()
    person.force_login(alice)
    sent = person.post(
        f"/parts/{part_id}/settle",
        {
            "action": "accept",
            "answer.invoice": upload("inv.pdf", PDF, "application/pdf"),
            "form_end": "1",
        },
        HTTP_HX_REQUEST="true",
    )
    assert sent.status_code == 200, sent.content
    ref = api.get(f"/requests/{part_id}").json()["envelope"]["content"]["invoice"]["file"]
    assert objects(bucket) == {ref}
    fetched = api.get(f"/files/{ref}")
    assert fetched.status_code == 200 and downloaded(fetched) == PDF
    assert fetched["Content-Type"] == "application/pdf" and s3_link_free(fetched)
    assert ApiClient(bob).get(f"/files/{ref}").status_code == 404


INVOICE = {
    "message": "Attach the invoice",
    "requestedSchema": {
        "type": "object",
        "properties": {"invoice": {"type": "string", "contentMediaType": "application/pdf"}},
    },
}
PDF = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"


@pytest.mark.django_db(transaction=False)
def test_scale_out_an_upload_to_one_server_is_downloaded_from_the_other(
    s3_server, tmp_path, monkeypatch
):
    """Two daphne processes on PostgreSQL, each with its own FILES_ROOT: only the bucket is
    shared, so a file uploaded through server A can only come back through B from it."""
    require_services()
    for name, value in CREDENTIALS.items():
        monkeypatch.setenv(name, value)
    s3 = boto3.client("s3", endpoint_url=s3_server, region_name="us-east-1")
    s3.create_bucket(Bucket=BUCKET)
    database = PostgresDatabase()
    env = scaleout_env(database, tmp_path, **bucket_env(s3_server))
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    server_a, server_b = LiveServer(tmp_path / "a", env), LiveServer(tmp_path / "b", env)
    try:
        prepare(server_a)
        key = server_a.manage(
            "shell",
            "--no-imports",
            "-c",
            (
                "from django.contrib.auth.models import User; "
                "from playground.api.tokens import create_token; "
                f"print(create_token(User.objects.get(username={USERNAME!r}), 'bot')[1])"
            ),
        ).strip()
        server_a.start()
        server_b.start()
        agent = httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=30)
        opened = agent.post(f"{server_b.url}/api/v1/conversations", json={"agentName": "Bot"})
        assert opened.status_code == 201, opened.text
        asked_ = agent.post(
            f"{server_b.url}/api/v1/conversations/{opened.json()['id']}/requests", json=INVOICE
        )
        assert asked_.status_code == 201, asked_.text
        part_id = asked_.json()["id"]
        person = Person(server_a)
        sent = person.client.post(
            f"/parts/{part_id}/settle",
            data={"action": "accept", "form_end": "1"},
            files={"answer.invoice": ("inv.pdf", PDF, "application/pdf")},
            headers={"X-CSRFToken": person.client.cookies["csrftoken"], "HX-Request": "true"},
        )
        assert sent.status_code == 200, sent.text
        ref = agent.get(f"{server_b.url}/api/v1/requests/{part_id}").json()["envelope"]["content"][
            "invoice"
        ]["file"]
        assert objects(s3) == {ref}
        assert not list((tmp_path / "a").rglob(ref))  # not on server A's disk
        downloaded = person.client.get(f"{server_b.url}/files/{ref}")
        assert downloaded.status_code == 200 and downloaded.content == PDF
        assert downloaded.headers["Content-Disposition"].startswith("attachment;")
        assert downloaded.headers["X-Content-Type-Options"] == "nosniff"
        fetched = agent.get(f"{server_b.url}/api/v1/files/{ref}")
        assert fetched.status_code == 200 and fetched.content == PDF
    finally:
        for server in (server_a, server_b):
            server.stop()
        database.drop()
        clear_redis_prefix(env["REDIS_PREFIX"])
        for key_ in objects(s3):
            s3.delete_object(Bucket=BUCKET, Key=key_)
        s3.delete_bucket(Bucket=BUCKET)
