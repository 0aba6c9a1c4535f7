"""An htmx form the server cannot read is refused with a sentence and nothing to swap."""

import json
from urllib.parse import urlencode

import pytest
from django.conf import settings

HTMX = {"HTTP_HX_REQUEST": "true"}
FORM = "application/x-www-form-urlencoded"


@pytest.fixture
def client(client, alice):
    client.force_login(alice)
    return client


def test_a_form_past_the_request_limit_is_refused_in_place(client):
    # ~100 KB of Cyrillic is ~300 KB once URL-encoded: past the 256 KiB Django reads.
    body = urlencode({"payload": "щ" * 50_000})
    assert len(body) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    response = client.post("/workbench/preview", body, content_type=FORM, **HTMX)
    assert response.status_code == 413
    assert response.headers["HX-Reswap"] == "none"  # the workbench stays as it is
    message = json.loads(response.headers["HX-Trigger"])["requestRefused"]["message"]
    assert message == (
        f"This form is {len(body):,} bytes, and the server reads at most 256 KiB in one "
        "request, so nothing was sent. What you typed is still here: shorten it and try again."
    )
    assert response.text == f'<p class="error" role="alert">{message}</p>'


def test_a_malformed_form_is_refused_in_place(client):
    response = client.post(
        "/workbench/preview",
        b'--xyz\r\nContent-Disposition: form-data; name="payload"\r\n\r\n{}',  # cut off
        content_type="multipart/form-data; boundary=",
        **HTMX,
    )
    assert response.status_code == 400
    assert response.headers["HX-Reswap"] == "none"
    assert "could not read this form" in response.headers["HX-Trigger"]


def test_a_form_within_the_limit_goes_through(client):
    response = client.post("/workbench/preview", {"payload": "щ" * 50_000}, **HTMX)
    assert response.status_code == 200  # multipart, as the workbench sends it: UTF-8 as is
    assert "HX-Trigger" not in response.headers


def test_a_request_without_htmx_is_left_to_django(client):
    body = urlencode({"payload": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)})
    response = client.post("/workbench/preview", body, content_type=FORM)
    assert response.status_code == 400
    assert "HX-Trigger" not in response.headers
