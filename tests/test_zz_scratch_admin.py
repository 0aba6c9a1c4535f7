import pytest
from django.contrib.auth.models import User
from elicitation.models import Part
from tests.conftest import make_conversation

@pytest.mark.django_db(transaction=True)
def test_scratch(client, alice, seeded):
    conv = make_conversation(alice, "deploy-assistant")
    client.force_login(alice)
    client.post(f"/c/{conv.pk}/send", {"text": "deploy please"})
    admin = User.objects.create_superuser("root", password="x")
    client.force_login(admin)
    part = Part.objects.get()
    for url in ["/admin/", "/admin/elicitation/part/", f"/admin/elicitation/part/{part.pk}/change/",
                "/admin/elicitation/part/overview/", f"/admin/playground/conversation/{conv.pk}/change/",
                "/admin/playground/conversation/", "/admin/playground/turn/", "/admin/playground/message/",
                f"/admin/playground/turn/{part.turn_id}/change/", "/admin/elicitation/part/?q=staging",
                "/admin/elicitation/part/overview/?start=2020-01-01&end=2019-01-01",]:
        r = client.get(url)
        print(url, r.status_code, len(r.content))
        assert r.status_code in (200, 400), r.content[:3000]
