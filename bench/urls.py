from django.urls import include, path

from bench import views

urlpatterns = [
    path("bench/save-row", views.save_row),
    path("bench/census", views.census),
    path("", include("playground.urls")),
]
