"""An AG-UI agent's or MCP server's address (its URL) is for staff only, as a model provider's
is: the person reads the error naming the agent, and staff find where it is on the admin's turn
page."""

import html

import pytest
from django.test import Client

from playground.runs.models import Message, Turn
from tests.support import agui_support, mcp_support
from tests.support.admin_support import make_staff
from tests.support.live_server import free_port
from tests.support.runtime_helpers import send

pytestmark = pytest.mark.django_db(transaction=True)


def down_agui_agent(settings, tmp_path, client, alice):
    address = f"http://127.0.0.1:{free_port()}/agent"
    path = agui_support.agents_file(tmp_path, address)
    return agui_support.chat_with(settings, client, alice, path), address


def down_mcp_server(settings, tmp_path, client, alice):
    address = f"http://127.0.0.1:{free_port()}/mcp"
    path = mcp_support.http_servers_file(tmp_path, address)
    return mcp_support.chat_with(settings, client, alice, path), address


@pytest.mark.parametrize(
    ("down", "expected"),
    [
        (down_agui_agent, "Test agent refused the connection: is it running?"),
        (down_mcp_server, "Could not connect to Test server: connection refused or unreachable."),
    ],
    ids=["agui", "mcp"],
)
def test_the_person_reads_the_error_without_the_address_and_staff_find_it(
    settings, tmp_path, client, alice, down, expected
):
    conversation, address = down(settings, tmp_path, client, alice)
    send(client, conversation, "hello")
    [error] = Message.objects.filter(turn__conversation=conversation, role=Message.Role.ERROR)
    assert expected in error.text

    # The person (not staff): the page, its steps included, never names the address.
    page = html.unescape(client.get(conversation.get_absolute_url()).content.decode())
    assert expected in page
    assert address not in page and f":{address.split(':')[2].split('/')[0]}" not in page
    turn = Turn.objects.get(conversation=conversation)
    admin_page = f"/admin/playground/turn/{turn.pk}/change/"
    assert client.get(admin_page).status_code == 302  # to the admin's login

    # Staff read the same error, and where the agent is, on the admin's turn page.
    staff = Client()
    staff.force_login(make_staff("root", superuser=True))
    shown = html.unescape(staff.get(admin_page).content.decode())
    assert expected in shown
    assert f"Address: {address}" in shown
