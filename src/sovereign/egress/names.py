"""The name tables of the identifier check: home-network suffixes, names every home has,
and Home Assistant's own vocabulary (docs/decisions/household-identifiers.md).

Data only, one row per entry with the document or product it comes from; read by
:mod:`.household`.
"""

from __future__ import annotations

__all__ = [
    "FACTORY_DOMAINS",
    "FACTORY_LABELS",
    "FACTORY_NAMES",
    "FACTORY_SUFFIXES",
    "HOME_ASSISTANT_VOCABULARY",
    "HOME_SUFFIXES",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


HOME_SUFFIXES: tuple[str, ...] = (
    "home.arpa",  # RFC 8375: residential home networks
    "local",  # RFC 6762: multicast DNS on the home network
    "lan",  # RFC 6762 Appendix G: used by home routers
    "home",  # RFC 6762 Appendix G; never delegated (ICANN 2018)
    "internal",  # ICANN board resolution 2024.07.29.06: private use
    "localdomain",  # the hosts-file domain of many distributions
    "fritz.box",  # AVM FRITZ!Box routers name every home device under it
    "speedport.ip",  # Deutsche Telekom Speedport routers, likewise
    "attlocal.net",  # AT&T home gateways, likewise (resolved only inside the home)
)
FACTORY_NAMES: frozenset[str] = frozenset(
    {
        "homeassistant.local",  # Home Assistant's default mDNS name
        "raspberrypi.local",  # Raspberry Pi OS's default host name
        "octopi.local",  # OctoPrint's image
        "openwrt.lan",  # OpenWrt's default host name and domain
        "myrouter.local",  # Linksys set-up page
        "host.docker.internal",  # Docker Desktop: the host
        "gateway.docker.internal",
        "kubernetes.docker.internal",
        "metadata.google.internal",  # cloud instance metadata
    }
)
"""Home-network names that are the same in every home using the product."""
FACTORY_SUFFIXES = (".svc.cluster.local", ".ec2.internal", ".compute.internal")
FACTORY_LABELS = frozenset(
    {"raspberrypi", "localhost", "pi", "debian", "ubuntu", "dietpi", "octopi", "homeassistant"}
    | {"openwrt"}
)
"""Default host names of the appliance's usual systems: not the household's words."""
HOME_ASSISTANT_VOCABULARY: frozenset[str] = _words(
    # entity domains (developers.home-assistant.io, "Entity" integration types)
    "sensor binary alarm control panel automation button calendar camera climate cover "
    "device tracker fan humidifier input boolean number select text light lock media "
    "player remote scene script siren switch update vacuum valve water heater weather "
    "zone person sun "
    # device classes (sensor, binary_sensor, cover)
    "temperature humidity pressure illuminance battery power energy voltage current "
    "moisture motion occupancy presence opening door window garage smoke gas carbon "
    "monoxide dioxide co co2 pm25 pm10 aqi noise sound vibration tamper safety problem "
    "connectivity plug running heat cold moving light level status state signal strength "
    "blind curtain shade shutter awning gate damper outlet tv speaker receiver "
    # rooms and places (the onboarding areas and their usual neighbours)
    "living room kitchen bedroom bathroom toilet hallway hall office study garage garden "
    "yard patio porch deck balcony basement cellar attic loft laundry utility dining "
    "guest master main kids nursery playroom entrance entry front back side upstairs "
    "downstairs ground first second floor ceiling wall desk bed stairs driveway pool "
    "shed outdoor outside indoor inside home house "
    # appliances and devices people name entities after
    "dishwasher washer washing machine dryer fridge refrigerator freezer oven stove hob "
    "microwave kettle coffee maker toaster aquarium pump filter purifier dehumidifier "
    "printer router modem nas server computer pc laptop phone tablet ipad iphone echo "
    "christmas tree fairy string lights led night reading bedside doorbell chime alarm "
    "sprinkler irrigation solar inverter charger car ev robot mower bin "
    # parts and modifiers
    "lamp bulb strip spot spots ceiling thermostat heater boiler radiator ac aircon "
    "left right north south east west top bottom upper lower small big all group "
    "average min max total daily today"
)
"""Words every Home Assistant names things with; a name made only of these (and
digits) is in every home."""
FACTORY_DOMAINS = frozenset(HOME_SUFFIXES)
