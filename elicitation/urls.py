from django.urls import path, re_path

from elicitation import views

urlpatterns = [
    path("parts/<int:part_id>/settle", views.settle, name="settle_part"),
    path("parts/<int:part_id>/edit", views.edit, name="edit_part"),
    path("parts/<int:part_id>/wire", views.wire, name="part_wire"),
    re_path(r"^files/(?P<file_id>[0-9a-f]{32})$", views.download_file, name="answer_file"),
    re_path(
        r"^files/(?P<file_id>[0-9a-f]{32})/preview$",
        views.preview_file,
        name="answer_file_preview",
    ),
]
