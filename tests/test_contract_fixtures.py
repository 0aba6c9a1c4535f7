"""The golden contract fixtures hold for the Python implementation (no Django)."""

import json
from pathlib import Path

import pytest

from elicitation import contract
from elicitation.contract import Degraded, ElicitationRequest, parse_request

FIXTURES = Path(__file__).resolve().parents[1] / "elicitation" / "fixtures" / "contract"
# CI clones the repository with shared/ beside it, so look next to the checkout.
REFERENCE = Path(__file__).resolve().parents[2] / "shared/reference/mcp_examples.json"


def fixture_files(folder: str) -> list[Path]:
    return sorted((FIXTURES / folder).glob("*.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text())


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
    assert parse_request(fixture["payload"]) == Degraded(fixture["reason"])
    assert "\n" not in fixture["reason"]


@pytest.mark.parametrize("path", fixture_files("answers"), ids=lambda path: path.stem)
def test_answer_fixture(path):
    fixture = load(path)
    request = parse_request(fixture["payload"])
    assert isinstance(request, ElicitationRequest), request
    if "typed" in fixture:
        result = contract.validate_content(request, fixture["typed"])
    else:
        offset = fixture.get("utc_offset_minutes", 0)
        result = contract.validate_form(request, fixture["form"], utc_offset_minutes=offset)
    assert result.content == fixture.get("content")
    assert result.errors == fixture.get("errors", {})


@pytest.mark.parametrize("case", load(FIXTURES / "envelopes.json"), ids=lambda case: case["call"])
def test_envelope_fixture(case):
    assert getattr(contract, case["call"])(*case["args"]) == case["result"]


def test_every_reference_payload_has_a_request_fixture():
    if not REFERENCE.exists():
        pytest.fail(f"reference payloads not found at {REFERENCE}: check out shared/ beside main/")
    for example in json.loads(REFERENCE.read_text()):
        path = FIXTURES / "requests" / f"{example['name']}.json"
        assert path.exists(), f"{example['name']} from mcp_examples.json has no fixture"
        payload = {"message": example["message"], "requestedSchema": example["requestedSchema"]}
        assert load(path)["payload"] == payload
