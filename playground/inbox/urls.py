from django.urls import path

from playground.inbox import views

urlpatterns = [
    path("inbox/", views.inbox_page, name="inbox"),
    path("q/<int:part_id>/", views.question, name="question"),
]
