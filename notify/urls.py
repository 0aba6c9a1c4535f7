from django.urls import path

from notify import views

urlpatterns = [
    path("settings/notifications", views.settings_page, name="notify_settings"),
]
