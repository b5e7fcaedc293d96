"""A fake Home Assistant REST API on 127.0.0.1.

Shapes follow Home Assistant's REST API documentation (repository
``home-assistant/developers.home-assistant``, ``docs/api/rest.md``; published at
https://developers.home-assistant.io/docs/api/rest/):

- every call carries ``Authorization: Bearer <long-lived access token>``; a
  missing or wrong token answers 401;
- ``GET /api/states`` answers an array of state objects, each with
  ``entity_id``, ``state``, ``attributes``, ``last_changed`` (and ``last_updated``);
- ``GET /api/states/<entity_id>`` answers one state object, or 404 if not found.

The ``sun.sun`` object is the documentation's own example. The camera entry
carries the ``access_token`` and signed ``entity_picture`` attributes Home
Assistant gives camera entities, so tests can check they are never passed on.
"""

from __future__ import annotations

import copy
from typing import Any

from ._loopback import LoopbackServer, Reply, Request

STATES: list[dict[str, Any]] = [
    {
        "attributes": {
            "azimuth": 336.34,
            "elevation": -17.67,
            "friendly_name": "Sun",
            "next_rising": "2016-05-31T03:39:14+00:00",
            "next_setting": "2016-05-31T19:16:42+00:00",
        },
        "entity_id": "sun.sun",
        "last_changed": "2016-05-30T21:43:29.204838+00:00",
        "last_updated": "2016-05-30T21:50:30.529465+00:00",
        "state": "below_horizon",
    },
    {
        "attributes": {
            "device_class": "temperature",
            "friendly_name": "Kitchen temperature",
            "state_class": "measurement",
            "unit_of_measurement": "°C",
        },
        "entity_id": "sensor.kitchen_temperature",
        "last_changed": "2024-01-05T07:12:03.118540+00:00",
        "last_updated": "2024-01-05T07:12:03.118540+00:00",
        "state": "21.4",
    },
    {
        "attributes": {"friendly_name": "Front door", "supported_features": 0},
        "entity_id": "lock.front_door",
        "last_changed": "2024-01-05T06:58:41.000000+00:00",
        "last_updated": "2024-01-05T06:58:41.000000+00:00",
        "state": "locked",
    },
    {
        "attributes": {
            "access_token": "camera-access-token-4d1f",
            "entity_picture": "/api/camera_proxy/camera.porch?token=camera-access-token-4d1f",
            "friendly_name": "Porch camera",
            "frontend_stream_type": "hls",
            "brand": "Example",
        },
        "entity_id": "camera.porch",
        "last_changed": "2024-01-05T05:00:00.000000+00:00",
        "last_updated": "2024-01-05T05:00:00.000000+00:00",
        "state": "idle",
    },
    {
        "attributes": {
            "friendly_name": "Garage light",
            "brightness": 180,
            "color_mode": "brightness",
        },
        "entity_id": "light.garage",
        "last_changed": "2024-01-05T07:30:00.000000+00:00",
        "last_updated": "2024-01-05T07:30:00.000000+00:00",
        "state": "on",
    },
]


class FakeHomeAssistant(LoopbackServer):
    """Home Assistant accepting one long-lived token.

    Attributes:
        states: the state objects served (a copy of :data:`STATES`, editable).
        redirect_to: when set, every request is answered 301 to it.
    """

    def __init__(self, token: str = "long-lived-token") -> None:
        super().__init__(self._route)
        self.token = token
        self.states = copy.deepcopy(STATES)
        self.redirect_to: str | None = None

    def _route(self, request: Request) -> Reply:
        if self.redirect_to:
            return Reply(301, {}, {"Location": self.redirect_to})
        if request.headers.get("authorization") != f"Bearer {self.token}":
            return Reply(401, {"message": "Invalid authentication"})
        if request.path == "/api/states":
            return Reply(200, self.states)
        prefix = "/api/states/"
        if request.path.startswith(prefix):
            wanted = request.path[len(prefix) :]
            for state in self.states:
                if state["entity_id"] == wanted:
                    return Reply(200, state)
            return Reply(404, {"message": "Entity not found."})
        return Reply(404, {"message": "Not found"})
