"""The workbench says what is wrong with text that is not JSON in plain words, and where."""

import pytest

from playground.workbench.reading import read_payload


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            '{\n  "message": "Hi",\n  "requestedSchema": {"type": "object"}\n',
            "A “}” is missing at line 4, column 1: the “{” at line 1, column 1 is not closed.",
        ),
        ("hello", "This is not JSON: it starts with “hello”."),
        ('{"a": [1, 2}', "A “]” is missing at line 1, column 12: the “[” at line 1, column 7"),
        ("[1 2]", "A comma is missing at line 1, column 4, before “2”."),
        ('{"a": 1,}', "A comma at line 1, column 8 has nothing after it: remove it."),
        ('{"a":}', "A value is missing before the “}” at line 1, column 6."),
        ("{'a': 1}", "A property name in double quotes (not single quotes) is expected"),
        ('{"a" 1}', "A “:” is missing at line 1, column 6, after the property name."),
        ('{"a": 1} x', "The JSON has ended, but more follows at line 1, column 10: “x”."),
        ('{"a": "b', "The text in quotes that starts at line 1, column 7 has no closing"),
        ('{"a": tru}', "“tru” at line 1, column 7 is not a JSON value"),
        ('{"a": "}"', "A “}” is missing at line 1, column 10"),  # a bracket in quotes is text
    ],
)
def test_it_says_what_is_wrong_in_plain_words(text, problem):
    reading = read_payload(text)
    assert reading.problem.startswith(problem)
    assert "Expecting" not in reading.problem and "delimiter" not in reading.problem


def test_it_keeps_the_line_and_column_for_the_go_to_button():
    reading = read_payload('{\n  "a": 1\n  "b": 2\n}')
    assert (reading.line, reading.column) == (3, 3)
    assert reading.problem == 'A comma is missing at line 3, column 3, before “"b"”.'
