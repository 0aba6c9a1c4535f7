"""The services file: what a deployment declares, and a plain error naming the key when it is
wrong."""

import re

import pytest

from playground.connections.services import ServicesFileError, load

GOOD = """
[services.demo]
title = "Demo"
fields = [{ name = "token" }, { name = "region", secret = false, default = "eu" }]
headers = { Authorization = "Bearer {token}" }
"""


def write(tmp_path, text: str):
    path = tmp_path / "services.toml"
    path.write_text(text)
    return path


def test_a_field_is_secret_and_required_unless_it_says_otherwise(tmp_path):
    demo = load(write(tmp_path, GOOD))["demo"]
    assert [(f.name, f.title, f.secret, f.default) for f in demo.fields] == [
        ("token", "Token", True, ""),
        ("region", "Region", False, "eu"),
    ]
    assert demo.present(demo.headers, {"token": "t", "region": "eu"}) == {
        "Authorization": "Bearer t"
    }


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "[services.demo]\ntitle = 'Demo'\n",
            "services.demo.fields: list the credential's fields.",
        ),
        (GOOD.replace("{token}", "{key}"), "services.demo.headers.Authorization: {key} is not one"),
        (GOOD + "colour = 'red'\n", "services.demo.colour: unknown key."),
        (GOOD + "test = { url = 'ftp://x' }\n", "services.demo.test.url: must be an http(s)://"),
        (
            GOOD.replace('{ name = "token" }', '{ name = "token", default = "x" }'),
            "a secret field cannot have a default",
        ),
        ("[services.Demo]\nfields = [{ name = 'a' }]\n", "services.Demo: a name is lowercase"),
        ("[other]\n", "unknown top-level key 'other'"),
        ("not toml", "not valid TOML"),
    ],
)
def test_a_wrong_file_is_named_with_its_key(tmp_path, text, problem):
    with pytest.raises(ServicesFileError, match=re.escape(problem)):
        load(write(tmp_path, text))


def test_no_file_means_no_services(settings):
    settings.CONNECTION_SERVICES_FILE = ""
    assert load() == {}
