"""Read a credential from the vault's form, and check it with the service's test request.

Messages name the service and its host, never a value: a test URL may carry the credential.
"""

from urllib.parse import urlsplit

import httpx
from django.http import QueryDict

from playground.connections.services import Service

TEST_SECONDS = 15.0
MAX_LABEL_CHARS = 100


def read_credential(
    service: Service, data: QueryDict
) -> tuple[dict[str, str], str, dict[str, str]]:
    """Return (values, label, errors by field name) from the form's `field.<name>` inputs."""
    values, errors = {}, {}
    for item in service.fields:
        value = data.get(f"field.{item.name}", "").strip()
        if not value and item.required:
            errors[item.name] = f"Enter the {item.title.lower()}."
        values[item.name] = value or item.default
    label = data.get("label", "").strip() or service.title
    if len(label) > MAX_LABEL_CHARS:
        errors["label"] = f"Keep the name under {MAX_LABEL_CHARS} characters."
    return values, label, errors


def kept_fields(service: Service, data: QueryDict) -> dict[str, list[str]]:
    """Return what the person typed that a refused form shows again: never a secret field."""
    kept = {"label": [data.get("label", "")]}
    for item in service.fields:
        if not item.secret:
            kept[item.name] = [data.get(f"field.{item.name}", "")]
    return kept


async def check(service: Service, values: dict[str, str]) -> str:
    """Send the service's test request with the credential; return "" or why it failed."""
    if not service.test_url:
        return ""
    url = service.test_url.format_map(values)
    host = urlsplit(url).netloc or url.split("/")[0]
    try:
        async with httpx.AsyncClient(timeout=TEST_SECONDS) as http:
            response = await http.request(
                service.test_method, url, headers=service.present(service.headers, values)
            )
    except httpx.TimeoutException:
        return f"{service.title} ({host}) did not answer within {TEST_SECONDS:g} seconds."
    except (httpx.HTTPError, ValueError):
        return f"Could not reach {service.title} at {host} to check this credential."
    if response.status_code in (401, 403):
        return (
            f"{service.title} refused this credential (HTTP {response.status_code}): check it "
            "and try again."
        )
    if not response.is_success:
        return (
            f"{service.title} answered HTTP {response.status_code} when checking this credential."
        )
    return ""
