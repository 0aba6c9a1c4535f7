"""An answered card reaches the open tabs before the run it resumes says anything."""

import pytest

from tests.support.runtime_helpers import answer, open_tab, pending, send, start

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_answered_card_reaches_the_tabs_before_the_runs_reply(client, alice):
    client.force_login(alice)
    conversation = start(alice, "test-greeter")
    send(client, conversation, "hi")
    tab = open_tab(conversation.pk)
    part = pending(conversation)
    answer(client, part, name="Ada")
    pushes = tab()
    card = next(i for i, html in enumerate(pushes) if f'id="part-{part.pk}"' in html)
    reply = next(i for i, html in enumerate(pushes) if "Nice to meet you, Ada" in html)
    # The card is sent as the answer commits, before the run is woken: a quick reply once
    # came in above a card that still showed its form (a browser test, on a loaded machine).
    assert card < reply, pushes
