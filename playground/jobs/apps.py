from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "playground.jobs"
    label = "jobs"
    verbose_name = "Jobs"
