from django.urls import path

from api import views
from api.endpoints import api

urlpatterns = [
    path("api/v1/", api.urls),
    path("tokens/", views.tokens, name="api_tokens"),
    path("tokens/<int:token_id>/revoke", views.revoke_token, name="api_revoke_token"),
]
