"""Every page has an icon: /favicon.ico (which browsers ask for on their own) leads to it, and the
chat's pages and the admin's link it, so no page asks for a file that is not there."""

import pytest

from tests.support.admin_support import chat_client, make_person, make_staff

ICON = '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">'


@pytest.mark.django_db
def test_favicon_ico_answers_with_the_icon(client):
    response = client.get("/favicon.ico", follow=True)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response.redirect_chain == [("/static/favicon.svg", 302)]


@pytest.mark.django_db
def test_the_chats_pages_and_the_admins_link_the_icon(seeded):
    assert ICON in chat_client(make_person("alice")).get("/").content.decode()
    admin = chat_client(make_staff("root", superuser=True))
    for path in ["/admin/", "/admin/playground/turn/", "/admin/api/apitoken/"]:
        assert ICON in admin.get(path).content.decode(), path
