from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from playground import preferences, schedule_views, views

# The hint about `make run`'s local login only where `make run` is what serves.
login_view = auth_views.LoginView.as_view(extra_context={"local": not settings.PRODUCTION})

urlpatterns = [
    path("", views.home, name="home"),
    path("agents/<slug:slug>/new", views.start_conversation, name="start_conversation"),
    path("agents/<slug:slug>/schedule/start", schedule_views.start_schedule, name="start_schedule"),
    path("agents/<slug:slug>/schedule/pause", schedule_views.pause_schedule, name="pause_schedule"),
    path(
        "agents/<slug:slug>/schedule/resume",
        schedule_views.resume_schedule,
        name="resume_schedule",
    ),
    path(
        "agents/<slug:slug>/schedule/run", schedule_views.run_schedule_now, name="run_schedule_now"
    ),
    path("c/<int:conversation_id>/", views.conversation_page, name="conversation"),
    path("c/<int:conversation_id>/send", views.send_message, name="send_message"),
    path("c/<int:conversation_id>/stop", views.stop_turn, name="stop_turn"),
    path("c/<int:conversation_id>/wire", views.conversation_wire, name="conversation_wire"),
    path("settings/", preferences.settings_page, name="settings"),
    path("settings/time-zone", preferences.detected_zone, name="detected_zone"),
    path("", include("elicitation.urls")),
    path("", include("playground.onboarding.urls")),
    path("", include("api.urls")),
    path("", include("workbench.urls")),
    path("", include("llm_agents.urls")),
    path("", include("connections.urls")),
    path("", include("notify.urls")),
    path("", include("inbox.urls")),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(extra_context={"local": not settings.PRODUCTION}),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
]
