from django.urls import path

from playground.llm_agents import views

urlpatterns = [
    path("llm-agents/new", views.new_llm_agent, name="new_llm_agent"),
    path("llm-agents/<slug:slug>/edit", views.edit_llm_agent, name="edit_llm_agent"),
]
