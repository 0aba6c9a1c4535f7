"""`/healthz` for load balancers and uptime checks: no login, never cached, JSON."""

import pytest


@pytest.mark.django_db(transaction=True)
def test_it_reports_the_database_and_the_channel_layer_as_ok(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "channel_layer": "ok"}}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db(transaction=True)
def test_it_rejects_a_post(client):
    assert client.post("/healthz").status_code == 405
