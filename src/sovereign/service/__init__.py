"""The Conversation Service over HTTP: routes, console-auth, policy store, wiring (DESIGN §1, §4).

Entry point: :func:`sovereign.service.app.create_app` with a
:class:`sovereign.service.settings.Settings`.
"""
