"""The golden contract fixtures hold for the Python implementation (no Django)."""

import pytest

from elicitation import contract
from elicitation.contract import Degraded, ElicitationRequest, parse_request
from tests.support.golden import GOLDEN as FIXTURES
from tests.support.golden import golden_files as fixture_files
from tests.support.golden import load, reference_examples

# The real payloads from public agents and the MCP specs (the shared reference payloads
# when this was written), each kept here as a golden request file with its source.
REFERENCE_NAMES = {
    "alternative_date",
    "confirmation_only",
    "contact_form",
    "contact_with_plan",
    "enum_variants",
    "everything_server_all_types",
    "nullable_anyof_legacy_server",
    "registration_lengths_enumnames",
    "single_required_string",
}


def test_every_folder_has_fixtures():
    for folder in ("requests", "degraded", "answers"):
        assert fixture_files(folder), f"no fixtures in {FIXTURES / folder}"


@pytest.mark.parametrize("path", fixture_files("requests"), ids=lambda path: path.stem)
def test_request_fixture(path):
    fixture = load(path)
    request = parse_request(fixture["payload"])
    assert isinstance(request, ElicitationRequest), request
    assert request.to_dict() == fixture["normalized"]
    assert ElicitationRequest.from_dict(fixture["normalized"]) == request


@pytest.mark.parametrize("path", fixture_files("degraded"), ids=lambda path: path.stem)
def test_degraded_fixture(path):
    fixture = load(path)
    files = fixture.get("files", True)  # False: a client that cannot carry files (MCP)
    degraded = Degraded(fixture["reason"], fixture["pointer"])
    assert parse_request(fixture["payload"], files=files) == degraded
    assert "\n" not in fixture["reason"]


@pytest.mark.parametrize("path", fixture_files("answers"), ids=lambda path: path.stem)
def test_answer_fixture(path):
    fixture = load(path)
    request = parse_request(fixture["payload"])
    assert isinstance(request, ElicitationRequest), request
    if "typed" in fixture:
        result = contract.validate_content(request, fixture["typed"])
    else:
        zone = fixture.get("zone", "UTC")
        files = fixture.get("files")  # the descriptions of the files the client stored
        result = contract.validate_form(request, fixture["form"], zone=zone, files=files)
    assert result.content == fixture.get("content")
    assert result.errors == fixture.get("errors", {})
    assert list(result.redacted) == fixture.get("redacted", [])


@pytest.mark.parametrize("case", load(FIXTURES / "envelopes.json"), ids=lambda case: case["call"])
def test_envelope_fixture(case):
    call = getattr(contract, case["call"])
    assert call(*case["args"], **case.get("kwargs", {})) == case["result"]


def test_every_reference_payload_is_kept_with_its_source():
    examples = reference_examples()
    assert set(examples) == REFERENCE_NAMES
    for example in examples.values():
        assert example["source"].strip()
        assert isinstance(parse_request(example), ElicitationRequest), example["name"]
