import pytest
from tests.admin_support import chat_client, make_person, make_staff, seed_review_data

@pytest.mark.django_db(transaction=True)
def test_scratch(seeded):
    make_person("alice"); seed_review_data("alice")
    c = chat_client(make_staff("root", superuser=True))
    for url in ["/admin/elicitation/part/?_facets=True", "/admin/playground/conversation/?_facets=True",
                "/admin/playground/turn/?_facets=True", "/admin/playground/message/", "/admin/playground/agent/1/change/",
                "/admin/elicitation/part/?o=-6.2", "/admin/playground/conversation/?o=4.-5"]:
        r = c.get(url)
        assert r.status_code == 200, (url, r.content[:500])
