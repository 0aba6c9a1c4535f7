"""Create the "reviewer" group: view-only access to the admin review (staff status still needed)."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "reviewer"
VIEWABLE = {
    "elicitation": ["part"],
    "playground": ["agent", "conversation", "turn", "message", "step"],
}


def create_reviewer_group(apps, schema_editor):
    # Permissions are normally made after all migrations ran; make them now to grant them.
    for label in VIEWABLE:
        app_config = apps.get_app_config(label)
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    for label, models in VIEWABLE.items():
        codenames = [f"view_{model}" for model in models]
        group.permissions.add(
            *Permission.objects.filter(content_type__app_label=label, codename__in=codenames)
        )


def remove_reviewer_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("elicitation", "0001_initial"),
        ("playground", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_reviewer_group, remove_reviewer_group)]
