from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.views.generic import RedirectView

from playground.chat import preferences, views
from playground.schedules import schedule_views

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
    path("", include("playground.api.urls")),
    path("", include("playground.workbench.urls")),
    path("", include("playground.llm_agents.urls")),
    path("", include("playground.connections.urls")),
    path("", include("playground.notify.urls")),
    path("", include("playground.inbox.urls")),
    path("", include("playground.accounts.urls")),
    path("", include("playground.docs.urls")),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico where a page links no icon (a JSON answer, a file). Looked up
    # at each request: the static file's name is hashed in production.
    path("favicon.ico", RedirectView.as_view(url=lazy(static, str)("favicon.svg"))),
]
