from django.urls import include, path

from bench import views

urlpatterns = [
    path("bench/census", views.census),
    path("bench/answer-floor/page/<int:conversation_id>", views.floor_page),
    path("bench/answer-floor/<int:part_id>", views.floor_answer),
    path("bench/answer-floor/times", views.floor_times),
    path("", include("playground.urls")),
]
