from django.urls import path

from playground.workbench import views

urlpatterns = [
    path("workbench/", views.workbench, name="workbench"),
    path("workbench/preview", views.preview, name="workbench_preview"),
    path("workbench/answer", views.typed_answer, name="workbench_answer"),
    path("workbench/chat", views.ask_in_chat, name="workbench_chat"),
]
