import pytest
from elicitation.models import Part
from tests.conftest import make_conversation

@pytest.mark.django_db(transaction=True)
def test_scratch(client, alice, seeded):
    conv = make_conversation(alice, "deploy-assistant")
    client.force_login(alice)
    r = client.post(f"/c/{conv.pk}/send", {"text": "deploy please"})
    print(r.status_code)
    for p in Part.objects.all():
        print(p.state, p.payload, p.normalized, p.pushed_at, p.intent, p.render_kind)
    from playground.models import Turn
    print(list(Turn.objects.values()))
