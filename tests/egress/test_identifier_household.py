"""The household's own words and names: every spelling of a phrase, names at their
boundaries, Home Assistant's generic names, and the flag's shape on the wire."""

# ruff: noqa: RUF001 - full-width and look-alike spellings are what these tests feed in

from __future__ import annotations

import pytest

from sovereign.egress import KINDS, REASONS, Flag, Household, check_arguments, find_identifiers

HOME = Household.build(
    private_words=["Zoë Müller", "Elm Street", "Oakridge Elementary", "张伟", "Biscuit"],
    home_assistant=[
        ("sensor.kitchen_temperature", "Kitchen Temperature"),
        ("light.living_room", "Living Room"),
        ("switch.aquarium_pump", "Aquarium Pump"),
        ("light.maya_bedroom", "Maya's Bedroom"),
        ("device_tracker.grans_ipad", "Gran's iPad"),
        ("person.tobi", "Tobi"),
    ],
    pihole_names=["nas.okafor.family", "printer.lan", "raspberrypi.local"],
    device_names=["sovereign-den", "raspberrypi"],
    device_domains=["okafor.family", "lan", "fritz.box"],
    wifi_names=["Okafor Fibre 5G"],
)


def flagged(text: str, household: Household = HOME) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.kind) for f in find_identifiers(text, household)]


@pytest.mark.parametrize(
    "spelling",
    [
        "Zoë Müller",
        "zoe muller",
        "ZOE MULLER",
        "ZoeMuller",
        "zoemuller",
        "zoe-muller",
        "zoe_muller",
        "zoe.muller",
        "Zoe\u0308 Mu\u0308ller",  # combining diaeresis
        "zoe%20m%C3%BCller",
        "zoe+muller",
        "Ｚｏｅ Ｍｕｌｌｅｒ",
    ],
)
def test_a_private_phrase_is_found_in_every_spelling(spelling):
    assert flagged(f"party for {spelling} on sunday") == [(spelling, "private_word")]


@pytest.mark.parametrize(
    "text",
    ["zoe's friends", "muller light yoghurt", "elmstreet", "elm-street"],
)
def test_part_of_a_phrase_is_only_flagged_when_the_whole_phrase_is_there(text):
    expected = [("elmstreet", "private_word")] if text == "elmstreet" else []
    expected = [("elm-street", "private_word")] if text == "elm-street" else expected
    assert flagged(text) == expected


@pytest.mark.parametrize("text", ["biscuits recipe", "emmanuel", "oakridge", "biscuitry"])
def test_a_private_word_is_never_found_inside_a_longer_word(text):
    assert flagged(text) == []


def test_a_private_word_in_a_script_without_spaces_is_found_inside_the_run():
    assert flagged("张伟的学校在哪里") == [("张伟", "private_word")]


def test_a_private_word_in_an_idna_host_is_found():
    url = "https://" + "zoë-müller".encode("idna").decode() + ".example/"
    assert flagged(url) == [(url[8:-9], "private_word")]


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("light.maya_bedroom off", "light.maya_bedroom"),
        ("maya_bedroom scene", "maya_bedroom"),
        ("maya's bedroom lamp", "maya's bedroom"),
        ("Maya’s Bedroom", "Maya’s Bedroom"),
        ("maya bedroom", "maya bedroom"),
        ("gran's ipad", "gran's ipad"),
        ("grans_ipad", "grans_ipad"),
        ("tobi is home", "tobi"),
    ],
)
def test_home_assistant_names_with_a_word_of_their_own_are_flagged(text, span):
    assert (span, "home_assistant_name") in flagged(text)


@pytest.mark.parametrize(
    "text",
    [
        "ideal kitchen temperature for bread",
        "sensor.kitchen_temperature unavailable",
        "living room paint colours",
        "best aquarium pump",
        "switch.aquarium_pump",
    ],
)
def test_home_assistant_names_every_home_has_are_not_flagged(text):
    assert flagged(text) == []


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("nas.okafor.family sftp", {"pihole_name", "device_name"}),
        ("nas.okafor.family.example.com", {"pihole_name", "device_name"}),  # still in there
        ("backup.okafor.family", {"device_name"}),
        ("NAS.OKAFOR.FAMILY", {"pihole_name", "device_name"}),
        ("sovereign-den slow", {"device_name"}),
        ("printer.lan offline", {"pihole_name", "local_host_name"}),
        ("okafor fibre 5g keeps dropping", {"wifi_name"}),
        ("Okafor-Fibre-5G", {"wifi_name"}),
    ],
)
def test_the_households_names_are_flagged(text, kinds):
    assert {kind for _, kind in flagged(text)} == kinds


@pytest.mark.parametrize(
    "text",
    [
        "nas.okafor.familyx",  # a longer label is another name
        "sovereign-denmark",
        "raspberrypi.local ssh",  # a factory name, even listed by Pi-hole
        "raspberrypi os",  # the appliance's default host name is nobody's
        "fritz.box login",  # the router's own name; hosts under it are flagged
    ],
)
def test_names_at_a_boundary_only_and_factory_names_never(text):
    assert flagged(text) == []


@pytest.mark.parametrize(
    "name",
    [
        "nas.local",
        "mayas-macbook.local",
        "media-box.lan",
        "router.home",
        "grafana.internal",
        "thermostat.home.arpa",
        "myhost.localdomain",
        "laptop.fritz.box",
        "tv.speedport.ip",
        "NAS.LOCAL",
    ],
)
def test_home_network_names_are_flagged(name):
    assert flagged(f"reach {name}:8080 now", Household()) == [(name, "local_host_name")]


@pytest.mark.parametrize(
    "text",
    [
        "homeassistant.local:8123",
        "raspberrypi.local",
        "octopi.local",
        "host.docker.internal",
        "web.default.svc.cluster.local",
        "ip-10.ec2.internal",
        "what is a .local domain",
        "example.com/home",
        "www.homedepot.com",
        "sweet home alabama",
        "local.example.com",
        "lan party",
        "internal.example.org",
    ],
)
def test_factory_names_and_words_that_only_resemble_home_names_are_not_flagged(text):
    assert [k for _, k in flagged(text, Household())] == []


def test_an_empty_household_has_no_words():
    assert flagged("zoe muller at elm street", Household()) == []


def test_one_letter_words_are_not_kept():
    assert Household.build(private_words=["a", "", "  ", "é"]).joined == {}


def test_a_flag_says_its_reason_and_serialises_for_the_card():
    [flag] = check_arguments({"query": "zoe muller", "time_range": "day"}, ["query"], HOME)
    assert flag == Flag(0, 10, "private_word", "query")
    assert flag.to_wire() == {
        "argument": "query", "start": 0, "end": 10, "kind": "private_word",
        "reason": "is on your household's list of private words",
    }  # fmt: skip


def test_every_kind_has_a_plain_reason():
    assert set(KINDS) == set(REASONS)
    assert all(reason and not reason.endswith(".") for reason in REASONS.values())


def test_the_check_is_deterministic_and_ordered():
    text = "mail zoe.muller@example.com at 192.168.7.3 from nas.local, tel +44 20 7946 0958"
    first = find_identifiers(text, HOME)
    assert first == find_identifiers(text, HOME) == sorted(first)
    assert {f.kind for f in first} == {
        "email_address", "private_word", "private_address", "local_host_name", "phone_number",
    }  # fmt: skip
