"""The Django REST framework service ``tests.drf.Drf`` runs: ``drf_app``,
imported by gunicorn from this folder alone (nothing else of the test
suite is on the server's path)."""
