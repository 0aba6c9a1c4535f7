from django.urls import path, re_path

from playground.api import problems, views
from playground.api.endpoints import api

urlpatterns = [
    path("api/v1/", problems.refusing_wrong_methods(api.urls)),
    re_path(r"^api/", problems.unknown_path),  # after every API path
    path("tokens/", views.tokens, name="api_tokens"),
    path("tokens/<int:token_id>/revoke", views.revoke_token, name="api_revoke_token"),
]
