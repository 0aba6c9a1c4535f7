from django.urls import path

from playground.connections import views

urlpatterns = [
    path("parts/<int:part_id>/connect", views.connect_part, name="connect_part"),
    path("connections/", views.connections_page, name="connections"),
    path("connections/oauth/callback", views.oauth_callback, name="oauth_callback"),
    path("connections/new/<slug:service_name>", views.new_connection, name="new_connection"),
    path("connections/<uuid:connection_id>/test", views.test_connection, name="test_connection"),
    path(
        "connections/<uuid:connection_id>/rename",
        views.rename_connection,
        name="rename_connection",
    ),
    path(
        "connections/<uuid:connection_id>/revoke",
        views.revoke_connection,
        name="revoke_connection",
    ),
]
