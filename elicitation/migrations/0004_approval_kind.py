"""Approvals become a kind of their own: parts asked as `tool_permission` elicitations move over."""

from django.db import migrations


def to_approval_kind(apps, schema_editor):
    Part = apps.get_model("elicitation", "Part")
    Part.objects.filter(render_kind="elicitation", intent="tool_permission").update(
        render_kind="approval", tool_name="request_approval"
    )


def back_to_elicitation(apps, schema_editor):
    Part = apps.get_model("elicitation", "Part")
    Part.objects.filter(render_kind="approval").update(
        render_kind="elicitation", tool_name="request_input"
    )


class Migration(migrations.Migration):
    dependencies = [("elicitation", "0003_part_state_created_index")]

    operations = [migrations.RunPython(to_approval_kind, back_to_elicitation)]
