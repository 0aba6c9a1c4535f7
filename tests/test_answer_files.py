"""Files as answers: stored by reference, checked by content, fetched only by who may see them."""

import hashlib
import io
import os
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import Permission, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from django.utils.html import escape
from PIL import Image

from elicitation import uploads
from elicitation.models import AnswerFile, Part
from elicitation.uploads import remove_unsent
from playground.runs.models import Turn
from playground.runs.runtime import build_part
from tests.support.api_support import ApiClient
from tests.support.runtime_helpers import pending, said, send, start

pytestmark = pytest.mark.django_db(transaction=True)
LOG = b"ERROR deploy failed at step 3\nstack trace follows\n"


@pytest.fixture(autouse=True)
def file_storage(settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "answer_files": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": tmp_path / "files"},
        },
    }
    return tmp_path / "files"


@pytest.fixture
def client(client, alice):
    client.force_login(alice)
    return client


def png(width: int = 40, height: int = 30) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 40, 40)).save(out, format="PNG")
    return out.getvalue()


def post(client: Client, part: Part, *, action="accept", end=True, **fields) -> object:
    """Post the form as the browser does: multipart, the end marker last."""
    data = {"action": action}
    for name, value in fields.items():
        data[f"answer.{name}"] = value
    if end:
        data["form_end"] = "1"
    return client.post(f"/parts/{part.pk}/settle", data, HTTP_HX_REQUEST="true")


def blocks(response) -> list[bytes]:
    """Return a download as the blocks the view sent (it streams them as it reads them)."""
    assert response.streaming, "a file is streamed, never read whole into the response"

    async def read() -> list[bytes]:
        return [block async for block in response.streaming_content]

    return async_to_sync(read)()


def downloaded(response) -> bytes:
    """Return the bytes of a download."""
    return b"".join(blocks(response))


def upload(name: str, content: bytes, claimed: str = "text/plain") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type=claimed)


def asked(client, alice):
    conversation = start(alice, "test-file-reader")
    send(client, conversation, "go")
    return conversation, pending(conversation)


def stored_names(root) -> set[str]:
    return {path.name for path in root.rglob("*") if path.is_file()} if root.exists() else set()


def test_the_agent_reads_the_file_through_its_reference_and_never_its_bytes(client, alice):
    conversation, part = asked(client, alice)
    response = post(client, part, log=upload("run-1412.log", LOG), ticket="OPS-7")
    assert response.status_code == 200, response.content
    part.refresh_from_db()
    log = part.response["content"]["log"]
    assert log == {
        "file": log["file"],
        "name": "run-1412.log",
        "size": len(LOG),
        "type": "text/plain",
        "sha256": hashlib.sha256(LOG).hexdigest(),
    }
    assert part.response["content"]["ticket"] == "OPS-7"
    assert "deploy failed" not in str(part.response) and "deploy failed" not in part.search_text
    assert said(conversation)[-1] == (
        f"Read run-1412.log ({len(LOG)} bytes, text/plain): ERROR deploy failed at step 3"
    )
    html = response.content.decode()
    assert f'href="/files/{log["file"]}"' in html and "run-1412.log" in html


def test_a_raster_image_gets_a_preview_in_the_chip_made_by_decoding_it(client, alice):
    _, part = asked(client, alice)
    shot = upload("screen.png", png(1200, 800), "image/png")
    response = post(client, part, log=upload("a.log", LOG), screenshots=shot)
    assert response.status_code == 200, response.content
    part.refresh_from_db()
    ref = part.response["content"]["screenshots"][0]["file"]
    assert f'<img class="file-preview" src="/files/{ref}/preview" alt="Preview of screen.png"' in (
        response.content.decode()
    )
    preview = client.get(f"/files/{ref}/preview")
    assert preview.status_code == 200 and preview["Content-Type"] == "image/png"
    assert Image.open(io.BytesIO(downloaded(preview))).size == (480, 320)
    # The log is no image: no preview for it.
    log_ref = part.response["content"]["log"]["file"]
    assert client.get(f"/files/{log_ref}/preview").status_code == 404
    # The chip is the same after a reload.
    page = client.get(f"/c/{part.conversation_id}/").content.decode()
    assert f'src="/files/{ref}/preview"' in page and f'href="/files/{log_ref}"' in page


def test_a_download_is_an_attachment_of_the_stored_type_in_a_sandbox(client, alice):
    _, part = asked(client, alice)
    post(client, part, log=upload("../../etc/évil name.log", LOG, "text/html"))
    part.refresh_from_db()
    ref = part.response["content"]["log"]["file"]
    response = client.get(f"/files/{ref}")
    assert response.status_code == 200
    assert downloaded(response) == LOG
    assert response["Content-Length"] == str(len(LOG))
    assert response["Content-Type"] == "text/plain"  # from the content, not the browser's claim
    assert response["Content-Disposition"].startswith("attachment;")
    assert "évil" in part.response["content"]["log"]["name"]
    assert part.response["content"]["log"]["name"] == "évil name.log"  # never a path
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in response["Content-Security-Policy"]
    assert AnswerFile.objects.get().stored_as == ref  # the storage's name is the id


def test_a_large_file_is_sent_block_by_block_as_it_is_read(client, alice):
    _, part = asked(client, alice)
    noise = io.BytesIO()
    Image.frombytes("RGB", (300, 300), os.urandom(300 * 300 * 3)).save(noise, format="PNG")
    big = noise.getvalue()  # random pixels do not compress: about 270 KB
    post(client, part, log=upload("a.log", LOG), screenshots=upload("big.png", big, "image/png"))
    part.refresh_from_db()
    response = client.get(f"/files/{part.response['content']['screenshots'][0]['file']}")
    sent = blocks(response)
    assert b"".join(sent) == big and response["Content-Length"] == str(len(big))
    assert len(sent) >= 4 and max(map(len, sent)) <= uploads.STREAM_BYTES


def test_someone_else_gets_404_for_the_file_and_staff_who_review_get_it(client, alice, bob):
    _, part = asked(client, alice)
    post(client, part, log=upload("a.log", LOG), screenshots=upload("s.png", png(), "image/png"))
    part.refresh_from_db()
    log, shot = part.response["content"]["log"]["file"], part.response["content"]["screenshots"][0]
    other = Client()
    other.force_login(bob)
    assert other.get(f"/files/{log}").status_code == 404
    assert other.get(f"/files/{shot['file']}/preview").status_code == 404
    assert Client().get(f"/files/{log}").status_code == 302  # logged out: to the login page
    bob.is_staff = True
    bob.save()
    bob.user_permissions.add(Permission.objects.get(codename="view_part"))
    staff = Client()
    staff.force_login(User.objects.get(pk=bob.pk))
    assert downloaded(staff.get(f"/files/{log}")) == LOG


def test_an_external_agent_fetches_its_conversations_files_with_its_token(alice, bob):
    api = ApiClient(alice)
    conversation_id = api.open_conversation()
    asked = api.post(
        f"/conversations/{conversation_id}/requests",
        {
            "message": "Attach the invoice",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "invoice": {"type": "string", "contentMediaType": "application/pdf"}
                },
            },
        },
    )
    assert asked.status_code == 201, asked.content
    part = Part.objects.get(pk=asked.json()["id"])
    person = Client()
    person.force_login(alice)
    pdf = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"
    assert post(person, part, invoice=upload("inv.pdf", pdf, "application/pdf")).status_code == 200
    envelope = api.get(f"/requests/{part.pk}").json()["envelope"]
    ref = envelope["content"]["invoice"]["file"]
    fetched = api.get(f"/files/{ref}")
    assert fetched.status_code == 200 and downloaded(fetched) == pdf
    assert fetched["Content-Type"] == "application/pdf"
    assert ApiClient(bob).get(f"/files/{ref}").status_code == 404


@pytest.mark.parametrize(
    ("sent", "error"),
    [
        (upload("empty.log", b""), "This file is empty."),
        (upload("big.log", b"x" * 2001), "This file is 2,001 bytes; the limit is 2,000 bytes."),
        (
            upload("fake.log", b"\x89PNG\r\n\x1a\n" + png()[8:], "text/plain"),
            "This file's content is image/png; choose a file of type text/plain.",
        ),
    ],
    ids=["empty", "too-large", "type-by-content"],
)
def test_a_refused_file_is_said_next_to_the_field_and_the_rest_is_kept(
    client, alice, file_storage, sent, error
):
    _, part = asked(client, alice)
    response = post(client, part, log=sent, ticket="OPS-7")
    assert response.status_code == 422
    html = response.content.decode()
    assert f'<p id="part-{part.pk}-log-error" class="error">{escape(error)}</p>' in html
    assert 'value="OPS-7"' in html
    assert Part.objects.get(pk=part.pk).state == Part.State.PENDING
    assert not AnswerFile.objects.exists() and stored_names(file_storage) == set()


def test_an_svg_is_never_an_image_here(client, alice):
    _, part = asked(client, alice)
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    response = post(client, part, log=upload("a.log", LOG), screenshots=upload("s.svg", svg))
    assert response.status_code == 422
    assert "s.svg: This file&#x27;s content is text/plain; choose a file of type image/*." in (
        response.content.decode()
    )


def test_a_good_file_is_kept_while_another_field_is_fixed(client, alice, file_storage):
    _, part = asked(client, alice)
    shot = upload("s.png", png(), "image/png")
    response = post(client, part, log=upload("big.log", b"x" * 5000), screenshots=shot)
    assert response.status_code == 422
    kept = AnswerFile.objects.get()
    html = response.content.decode()
    assert f'name="answer.screenshots" value="{kept.pk.hex}" checked' in html
    assert "Keep s.png" in html
    response = post(client, part, log=upload("a.log", LOG), screenshots=kept.pk.hex)
    assert response.status_code == 200, response.content
    part.refresh_from_db()
    assert part.response["content"]["screenshots"][0]["file"] == kept.pk.hex
    assert AnswerFile.objects.filter(claimed_at__isnull=False).count() == 2


def test_a_cut_off_upload_is_refused_and_nothing_is_stored(client, alice, file_storage):
    _, part = asked(client, alice)
    response = post(client, part, end=False, log=upload("a.log", LOG), ticket="OPS-7")
    assert response.status_code == 400
    assert uploads.CUT_OFF in response.content.decode() and 'value="OPS-7"' in (
        response.content.decode()
    )
    assert not AnswerFile.objects.exists() and stored_names(file_storage) == set()


def test_two_tabs_answering_one_wins_and_the_losers_upload_is_removed(client, alice, file_storage):
    _, part = asked(client, alice)
    second_tab = Client()
    second_tab.force_login(alice)
    assert post(client, part, log=upload("first.log", LOG)).status_code == 200
    loser = post(second_tab, part, log=upload("second.log", b"second\n"))
    assert loser.status_code == 409
    assert list(AnswerFile.objects.values_list("name", flat=True)) == ["first.log"]
    assert stored_names(file_storage) == {AnswerFile.objects.get().stored_as}


def test_uploads_never_sent_are_removed_by_the_sweep(client, alice, file_storage, settings):
    _, part = asked(client, alice)
    post(client, part, log=upload("big.log", b"x" * 5000), screenshots=upload("s.png", png()))
    assert AnswerFile.objects.count() == 1 and len(stored_names(file_storage)) == 2  # + preview
    assert remove_unsent() == []  # the question still waits: kept for now
    AnswerFile.objects.update(created_at=timezone.now() - timedelta(days=2))
    assert len(remove_unsent()) == 1
    assert not AnswerFile.objects.exists() and stored_names(file_storage) == set()


def test_a_person_over_their_quota_is_told_so(client, alice, settings):
    settings.FILES_QUOTA_BYTES = 60
    _, part = asked(client, alice)
    response = post(client, part, log=upload("a.log", LOG * 2))
    assert response.status_code == 422
    assert "past your 60 bytes quota" in response.content.decode()


def test_a_decline_stores_nothing(client, alice, file_storage):
    conversation, part = asked(client, alice)
    assert post(client, part, action="decline", log=upload("a.log", LOG)).status_code == 200
    assert not AnswerFile.objects.exists() and stored_names(file_storage) == set()
    assert said(conversation)[-1] == "No log then (decline)."


def test_a_file_question_for_an_mcp_server_is_degraded_with_the_reason(alice):
    conversation = start(alice, "test-file-reader")
    turn = Turn.objects.create(conversation=conversation, index=0, text="go")
    payload = {
        "message": "Attach it",
        "requestedSchema": {
            "type": "object",
            "properties": {"log": {"type": "string", "format": "data-url"}},
        },
    }
    part = build_part(
        turn=turn,
        call_index=0,
        kind_name="elicitation",
        payload=payload,
        allowed_actions=["accept", "cancel"],
        tool_call_id="c0",
        files=False,
    )
    assert part.state == Part.State.DEGRADED
    assert part.degraded_reason.startswith('property "log" asks for a file — MCP has no file field')


def test_the_people_a_question_was_asked_of_may_fetch_its_files(client, alice, bob):
    _, part = asked(client, alice)
    part.assigned_users.add(bob)
    post(client, part, log=upload("a.log", LOG))
    part.refresh_from_db()
    assignee = Client()
    assignee.force_login(bob)
    assert downloaded(assignee.get(f"/files/{part.response['content']['log']['file']}")) == LOG


def test_staff_see_attached_files_in_the_admin_with_a_download(client, alice, admin_client):
    _, part = asked(client, alice)
    post(client, part, log=upload("run-1412.log", LOG))
    answer_file = AnswerFile.objects.get()
    listing = admin_client.get("/admin/elicitation/answerfile/").content.decode()
    assert "run-1412.log" in listing and f"{len(LOG)} bytes" in listing
    page = admin_client.get(f"/admin/elicitation/answerfile/{answer_file.pk}/change/")
    assert f'href="/files/{answer_file.pk.hex}" download' in page.content.decode()
    assert downloaded(admin_client.get(f"/files/{answer_file.pk.hex}")) == LOG
