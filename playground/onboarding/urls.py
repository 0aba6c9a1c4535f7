from django.urls import path

from playground.onboarding import views

urlpatterns = [
    path("agents/new", views.new_agent, name="new_agent"),
    path("agents/<slug:slug>/", views.agent_page, name="agent_page"),
    path("agents/<slug:slug>/config.json", views.export_config, name="export_agent_config"),
    path("agents/<slug:slug>/delete", views.delete_agent, name="delete_agent"),
]
