from django.urls import path, re_path

from playground.docs import views

urlpatterns = [
    path("docs/", views.page, name="docs"),
    path("docs/search/", views.search, name="docs_search"),
    re_path(r"^docs/(?P<folder>screenshots|examples)/(?P<path>.+)$", views.file, name="docs_file"),
    re_path(r"^docs/(?P<slug>[a-z0-9-]+)\.md$", views.source, name="docs_source"),
    path("docs/<slug:slug>/", views.page, name="docs_page"),
    # Any other address under /docs/: the 404 page with the navigation and the search box.
    re_path(r"^docs/.*$", views.page, {"slug": ""}, name="docs_missing"),
    path("llms.txt", views.llms_txt, name="llms_txt"),
    path("llms-full.txt", views.llms_full_txt, name="llms_full_txt"),
]
