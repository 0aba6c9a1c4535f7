"""Two first sign-ins of the same new person at once (a double click, two tabs), on PostgreSQL
(run with DATABASE_URL=postgres://...): both are signed in to the one account the first made.

On SQLite transactions take turns (IMMEDIATE), so the two cannot overlap there."""

import threading

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.db import connection
from django.test import RequestFactory

from playground.accounts.models import SignOn
from playground.accounts.people import Person

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL: SQLite's sign-ins take turns"
)

ADA = Person(issuer="https://sso.example.com", subject="ada-1", username="ada", name="Ada")


@pytest.mark.django_db(transaction=True)
def test_two_first_sign_ins_at_once_both_get_the_one_account():
    # Both look for the person's account, and find none, before either makes it.
    both_looked = threading.Barrier(2, timeout=10)
    users, errors = [], []

    def sign_in() -> None:
        looked = False

        def look_together(execute, sql, params, many, context):
            nonlocal looked
            result = execute(sql, params, many, context)
            if not looked and '"accounts_signon"' in sql and "FOR UPDATE" in sql:
                looked = True
                both_looked.wait()
            return result

        try:
            with connection.execute_wrapper(look_together):
                users.append(authenticate(RequestFactory().get("/"), person=ADA))
        except Exception as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=sign_in) for _ in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(users) == 2 and users[0].pk == users[1].pk
    assert list(User.objects.values_list("username", flat=True)) == ["ada"]
    assert SignOn.objects.get().user_id == users[0].pk
