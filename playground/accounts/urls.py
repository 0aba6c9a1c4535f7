from django.urls import path

from playground.accounts import views

urlpatterns = [
    path("accounts/login/", views.login_page, name="login"),
    path("accounts/logout/", views.logout_view, name="logout"),
    path("accounts/oidc/start/", views.oidc_start, name="oidc_start"),
    path("accounts/oidc/callback/", views.oidc_callback, name="oidc_callback"),
    path("admin/login/", views.admin_login),  # before the admin's own
]
