from django.apps import AppConfig


class WorkbenchConfig(AppConfig):
    name = "playground.workbench"
    label = "workbench"
    verbose_name = "Schema workbench"
