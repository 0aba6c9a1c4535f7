"""A person's time zone: taken from the browser at login, asked once otherwise, changeable."""

from django.test import Client

from elicitation.models import PersonZone


def zone_of(user) -> str | None:
    found = PersonZone.objects.filter(user=user).first()
    return found.name if found else None


def test_logging_in_keeps_the_browsers_zone(alice):
    client = Client()
    data = {"username": "alice", "password": "alice-password-1", "time_zone": "Europe/Berlin"}
    client.post("/accounts/login/", data)
    assert zone_of(alice) == "Europe/Berlin"


def test_a_later_login_from_another_zone_does_not_change_it(alice):
    PersonZone.objects.create(user=alice, name="Asia/Tokyo")
    data = {"username": "alice", "password": "alice-password-1", "time_zone": "Europe/Berlin"}
    Client().post("/accounts/login/", data)
    assert zone_of(alice) == "Asia/Tokyo"


def test_a_page_asks_the_browser_only_while_the_zone_is_unknown(client, alice):
    client.force_login(alice)
    assert 'data-zone-unknown="/settings/time-zone"' in client.get("/settings/").content.decode()
    assert client.post("/settings/time-zone", {"time_zone": "America/New_York"}).status_code == 204
    assert zone_of(alice) == "America/New_York"
    assert "data-zone-unknown" not in client.get("/settings/").content.decode()
    client.post("/settings/time-zone", {"time_zone": "Europe/Berlin"})
    assert zone_of(alice) == "America/New_York"


def test_the_settings_page_changes_the_zone_and_refuses_made_up_ones(client, alice):
    client.force_login(alice)
    response = client.post("/settings/", {"time_zone": "Australia/Sydney"})
    assert "now show in Australia/Sydney time" in response.content.decode()
    assert zone_of(alice) == "Australia/Sydney"
    response = client.post("/settings/", {"time_zone": "Mars/Olympus_Mons"})
    assert response.status_code == 422
    assert "Choose a time zone from the list." in response.content.decode()
    assert zone_of(alice) == "Australia/Sydney"
    assert "<option selected>Australia/Sydney</option>" in response.content.decode()
