"""The admin says "API tokens", not "Api tokens" (an option only: no change to the table)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0002_webhook_lease"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="apitoken",
            options={"ordering": ["-created_at"], "verbose_name": "API token"},
        ),
    ]
