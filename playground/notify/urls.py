from django.urls import path

from playground.notify import views

urlpatterns = [
    path("settings/notifications", views.settings_page, name="notify_settings"),
]
