"""Webhook deliveries get a stable Webhook-Id and a lease token (see playground/api/webhooks.py).

Django's recipe for a unique field on a table that may have rows: add it nullable, give each
row its own value, then make it unique.
"""

import uuid

from django.db import migrations, models


def give_each_delivery_an_id(apps, schema_editor):
    WebhookDelivery = apps.get_model("api", "WebhookDelivery")
    for delivery in WebhookDelivery.objects.filter(webhook_id__isnull=True).only("pk"):
        delivery.webhook_id = uuid.uuid4()
        delivery.save(update_fields=["webhook_id"])


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="webhookdelivery",
            name="lease_token",
            field=models.CharField(blank=True, editable=False, max_length=32),
        ),
        migrations.AddField(
            model_name="webhookdelivery",
            name="webhook_id",
            field=models.UUIDField(editable=False, null=True),
        ),
        migrations.RunPython(give_each_delivery_an_id, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="webhookdelivery",
            name="webhook_id",
            field=models.UUIDField(default=uuid.uuid4, editable=False, unique=True),
        ),
    ]
