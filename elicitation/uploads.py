"""Files attached to answers: stored through Django's storage API, described by reference.

A file is read once as it is stored: its size, SHA-256 and type (from its content, never its
name) are kept beside it, and a raster image gets a small PNG preview made by decoding it
(never SVG, never anything a decoder refuses). The bytes stay in the `answer_files` storage;
parts, envelopes, pushes and exports carry only the description (`AnswerFile.describe`).
Uploads are claimed by the answer that settles their part; the rest are removed (`discard`,
and the uploads job's `remove_unsent`).
"""

import codecs
import hashlib
import io
import logging
import unicodedata
from collections.abc import AsyncIterator, Iterable, Mapping
from datetime import timedelta

import filetype
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.files.base import ContentFile, File
from django.core.files.storage import storages
from django.db.models import Q, Sum
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils import timezone
from PIL import Image, UnidentifiedImageError

from elicitation import contract
from elicitation.contract import ElicitationRequest, Field
from elicitation.models import AnswerFile, Part

logger = logging.getLogger(__name__)

CUT_OFF = "The upload was cut off before it finished, so nothing was saved. Attach the file again."
# Decoded for a preview only up to this many pixels (a small file can unpack to gigabytes).
PREVIEW_MAX_PIXELS = 40_000_000
PREVIEW_SIZE = (480, 480)
RASTER_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp")
_HEAD_BYTES = 8192
# What a multipart form adds around its values and files (boundaries, headers, file names).
FORM_OVERHEAD_BYTES = 64 * 1024
STREAM_BYTES = 64 * 1024  # a download's blocks (Django's ASGI handler sends 64 KiB at a time)


def storage():
    """Return the storage attached files live in."""
    return storages["answer_files"]


def file_fields(request: ElicitationRequest) -> list[Field]:
    return [field for field in request.fields if field.type == "file"]


def receive(
    part: Part,
    user,
    request: ElicitationRequest,
    kept: Mapping[str, list[str]],
    uploads: Mapping[str, list],
) -> tuple[dict[str, list[dict]], dict[str, str], dict[str, list[str]]]:
    """Store the files sent for each file field of `request`; return their descriptions by
    field (with the ones kept from an earlier refused try), the problems by field, and the
    ids the form should keep if the answer is refused.

    A refused file is not stored. For a single-file field a new file replaces a kept one.
    """
    described: dict[str, list[dict]] = {}
    problems: dict[str, str] = {}
    for field in file_fields(request):
        stored = kept_files(part, user, kept.get(field.name, []))
        sent = [upload for upload in uploads.get(field.name, []) if upload.name or upload.size]
        if sent and not field.multiple:
            discard(stored)
            stored = []
        for upload in sent:
            found = store(part, user, field, upload)
            if isinstance(found, str):
                problems[field.name] = f"{_name(upload)}: {found}" if field.multiple else found
            else:
                stored.append(found)
        described[field.name] = [item.describe() for item in stored]
    keep = {name: [item["file"] for item in items] for name, items in described.items()}
    return described, problems, keep


def body_limit(part_id: int) -> int | None:
    """Return the most an answer to `part_id` may send in one request, in bytes: every file
    its file fields take at their largest, and the form's other fields. None when there is no
    such part (the view says so)."""
    part = Part.objects.filter(pk=part_id).only("normalized").first()
    if part is None:
        return None
    files = 0
    if has_file_fields(part):
        for field in file_fields(ElicitationRequest.from_dict(part.normalized)):
            count = (field.max_items or contract.MAX_FILES) if field.multiple else 1
            files += count * (field.max_size or contract.DEFAULT_FILE_BYTES)
    return files + settings.DATA_UPLOAD_MAX_MEMORY_SIZE + FORM_OVERHEAD_BYTES


def kept_files(part: Part, user, ids: Iterable[str]) -> list[AnswerFile]:
    """Return the person's unsent uploads to `part` among `ids` (anything else is ignored)."""
    valid = [value for value in ids if is_file_id(value)]
    if not valid:
        return []
    found = AnswerFile.objects.filter(
        part=part, uploaded_by=user, claimed_at__isnull=True, pk__in=valid
    )
    return sorted(found, key=lambda item: valid.index(item.pk.hex))


def files_named(ids: Iterable[str]) -> dict[str, AnswerFile]:
    """Return the files among `ids`, by id (for showing an answer's chip)."""
    valid = [value for value in ids if is_file_id(value)]
    if not valid:
        return {}
    return {item.pk.hex: item for item in AnswerFile.objects.filter(pk__in=valid)}


def store(part: Part, user, field: Field, upload: File) -> AnswerFile | str:
    """Store one sent file for `field`, or return why it is refused (nothing is stored)."""
    size = upload.size or 0
    if size == 0:
        return "This file is empty."
    if size > (field.max_size or contract.DEFAULT_FILE_BYTES):
        return contract.file_problem(field, {"size": size, "type": ""})  # too large: not read
    used = AnswerFile.objects.filter(uploaded_by=user).aggregate(total=Sum("size"))["total"]
    if (used or 0) + size > settings.FILES_QUOTA_BYTES:
        quota = contract.size_text(settings.FILES_QUOTA_BYTES)
        return (
            f"This file would take your attached files past your {quota} quota "
            f"(you use {contract.size_text(used or 0)}). Ask an admin to remove old ones."
        )
    digest, kind = _read(upload)
    problem = contract.file_problem(field, {"size": size, "type": kind})
    if problem:
        return problem
    answer_file = AnswerFile(
        part=part,
        uploaded_by=user,
        name=_name(upload),
        size=size,
        content_type=kind,
        sha256=digest,
    )
    upload.seek(0)
    answer_file.stored_as = storage().save(answer_file.pk.hex, File(upload))
    if kind in RASTER_TYPES:
        answer_file.preview_as = _preview(answer_file, upload)
    answer_file.save()
    return answer_file


def claim(part: Part, envelope: dict) -> None:
    """Mark the files an accepted answer carries as sent (inside the settling transaction)."""
    ids = [item["file"] for item in _answered(part, envelope)]
    if ids:
        AnswerFile.objects.filter(part=part, pk__in=ids).update(claimed_at=timezone.now())


def discard(files: Iterable[AnswerFile]) -> None:
    """Remove uploads, their bytes and previews (the deletion signal removes the bytes)."""
    for item in files:
        if item.claimed_at is None:
            item.delete()


def has_file_fields(part: Part) -> bool:
    """Return whether a part's question has a file field (no query)."""
    fields = (part.normalized or {}).get("fields") if isinstance(part.normalized, dict) else None
    return isinstance(fields, list) and any(
        isinstance(field, dict) and field.get("type") == "file" for field in fields
    )


def discard_unsent(part: Part) -> None:
    """Remove every upload to `part` no answer carried (after it settled, or a lost race)."""
    if has_file_fields(part):
        discard(AnswerFile.objects.filter(part=part, claimed_at__isnull=True))


def remove_unsent() -> list[str]:
    """Remove uploads never sent with an answer: older than FILES_UNSENT_SECONDS, or for a
    question that is no longer waiting. Return their ids (the uploads job calls this)."""
    cutoff = timezone.now() - timedelta(seconds=settings.FILES_UNSENT_SECONDS)
    stale = AnswerFile.objects.filter(claimed_at__isnull=True).filter(
        Q(created_at__lt=cutoff) | ~Q(part__state=Part.State.PENDING)
    )
    removed = [item.pk.hex for item in stale]
    discard(stale)
    return removed


def open_bytes(answer_file: AnswerFile, *, preview: bool = False) -> bytes:
    """Return a file's bytes (or its preview's)."""
    with storage().open(answer_file.preview_as if preview else answer_file.stored_as) as handle:
        return handle.read()


async def stream_bytes(answer_file: AnswerFile, *, preview: bool = False) -> AsyncIterator[bytes]:
    """Yield a file's bytes (or its preview's) a block at a time, each read off the event loop:
    a download never holds the whole file in memory, nor a thread while the client reads."""
    name = answer_file.preview_as if preview else answer_file.stored_as
    handle = await sync_to_async(storage().open, thread_sensitive=False)(name)
    try:
        while block := await sync_to_async(handle.read, thread_sensitive=False)(STREAM_BYTES):
            yield block
    finally:
        await sync_to_async(handle.close, thread_sensitive=False)()


@receiver(post_delete, sender=AnswerFile)
def _remove_bytes(sender, instance: AnswerFile, **kwargs) -> None:
    for name in (instance.stored_as, instance.preview_as):
        if name:
            storage().delete(name)


def _answered(part: Part, envelope: dict) -> list[dict]:
    if envelope.get("action") != "accept" or not has_file_fields(part):
        return []
    content = envelope.get("content") or {}
    found = []
    for field in file_fields(ElicitationRequest.from_dict(part.normalized)):
        value = content.get(field.name)
        found += value if isinstance(value, list) else [value] if value else []
    return [item for item in found if isinstance(item, dict) and is_file_id(item.get("file"))]


def _read(upload: File) -> tuple[str, str]:
    """Return the SHA-256 of a file and its type as its content says."""
    digest = hashlib.sha256()
    decoder = codecs.getincrementaldecoder("utf-8")()
    head, text = b"", True
    upload.seek(0)
    for chunk in upload.chunks():
        digest.update(chunk)
        if len(head) < _HEAD_BYTES:
            head += chunk[: _HEAD_BYTES - len(head)]
        if text:
            try:
                text = "\x00" not in decoder.decode(chunk)
            except UnicodeDecodeError:
                text = False
    if text:
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            text = False
    guessed = filetype.guess_mime(head)
    kind = guessed or ("text/plain" if text else "application/octet-stream")
    return digest.hexdigest(), kind


def _preview(answer_file: AnswerFile, upload: File) -> str:
    """Decode a raster image and store a small PNG of it; "" when it does not decode."""
    upload.seek(0)
    try:
        with Image.open(upload) as image:
            if image.width * image.height > PREVIEW_MAX_PIXELS:
                return ""
            image.load()
            image.thumbnail(PREVIEW_SIZE)
            shown = image.convert("RGBA")
            out = io.BytesIO()
            shown.save(out, format="PNG")
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        logger.info("no preview for %s: it does not decode as an image", answer_file.pk)
        return ""
    return storage().save(f"{answer_file.pk.hex}.preview.png", ContentFile(out.getvalue()))


def _name(upload: File) -> str:
    """Return a sent file's name for display: its last path segment, printable, at most 255."""
    raw = (upload.name or "").replace("\\", "/").rsplit("/", 1)[-1]
    shown = "".join(char for char in raw if unicodedata.category(char)[0] != "C").strip()
    return (shown or "file")[:255]


def is_file_id(value: object) -> bool:
    """Return whether a value is a file reference: 32 lowercase hex digits."""
    return isinstance(value, str) and len(value) == 32 and all(c in _HEX for c in value)


_HEX = frozenset("0123456789abcdef")
