from django.urls import path

from elicitation import views

urlpatterns = [
    path("parts/<int:part_id>/settle", views.settle, name="settle_part"),
    path("parts/<int:part_id>/edit", views.edit, name="edit_part"),
    path("parts/<int:part_id>/wire", views.wire, name="part_wire"),
]
