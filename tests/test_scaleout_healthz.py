"""The probes: `/healthz` (readiness) and `/livez` (liveness). No login, never cached, JSON,
answered for any Host and over plain HTTP, since orchestrators probe a process by its IP."""

import json

import pytest

from tests.support.live_server import free_port


@pytest.mark.django_db(transaction=True)
def test_it_reports_the_database_and_the_channel_layer_as_ok(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "channel_layer": "ok"}}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db(transaction=True)
def test_it_rejects_a_post(client):
    assert client.post("/healthz").status_code == 405


@pytest.mark.django_db(transaction=True)
def test_it_answers_a_probe_addressed_by_ip_over_http_where_pages_are_refused(client, settings):
    settings.ALLOWED_HOSTS = ["chat.example.com"]
    settings.SECURE_SSL_REDIRECT = True

    assert client.get("/healthz", HTTP_HOST="10.42.0.17:8001").status_code == 200
    assert client.get("/livez", HTTP_HOST="10.42.0.17:8001").status_code == 200
    assert client.get("/accounts/login/", HTTP_HOST="10.42.0.17:8001").status_code == 400


@pytest.mark.django_db(transaction=True)
def test_it_names_the_failed_component_with_a_short_reason_and_no_address(client, settings):
    port = free_port()  # nothing listens there
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [{"address": f"redis://:hunter2@127.0.0.1:{port}/0"}]},
        }
    }

    response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json() == {
        "status": "unavailable",
        "checks": {
            "database": "ok",
            "channel_layer": "failed: ConnectionError (details in the server log)",
        },
    }


def test_livez_answers_without_the_database(client):
    response = client.get("/livez")  # no django_db mark: any query would raise here

    assert response.status_code == 200
    assert json.loads(response.content) == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]
