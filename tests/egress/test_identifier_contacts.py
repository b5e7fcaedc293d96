"""The identifier check's e-mail and phone grammars, their obfuscations and near-misses."""

# ruff: noqa: RUF001 - full-width and look-alike spellings are what these tests feed in

from __future__ import annotations

import pytest

from sovereign.egress import find_identifiers


def flagged(text: str) -> list[tuple[str, str]]:
    return [(text[f.start : f.end], f.kind) for f in find_identifiers(text)]


@pytest.mark.parametrize(
    "address",
    [
        "jane.doe@example.com",
        "j.doe+school@mail.example.co.uk",
        "o_brien-42@example.org",
        "JANE@EXAMPLE.COM",
        "josé@exämple.de",  # RFC 6531 Unicode local part and domain
        "mia@xn--exmple-cua.de",
        "ＪＡＮＥ＠ＥＸＡＭＰＬＥ．ＣＯＭ",  # full-width
        "jane%40example.com",  # percent-encoded @
        "jane@example.com",
    ],
)
def test_an_email_address_is_flagged_in_any_spelling(address):
    assert flagged(f"mail from {address} today") == [(address, "email_address")]


@pytest.mark.parametrize(
    "address",
    [
        "jane at example dot com",
        "jane AT example DOT com",
        "jane [at] example [dot] com",
        "jane(at)example(dot)com",
        "jane {at} example {dot} co {dot} uk",
        "jane @ example.com",
        "jane@example dot com",
        "jane [at] example.com",
    ],
)
def test_an_obfuscated_email_address_is_flagged(address):
    assert flagged(f"write to {address} please") == [(address, "email_address")]


@pytest.mark.parametrize(
    "text",
    [
        "sign in at paypal.com",  # "at" alone is a preposition
        "cheaper at walmart.com this week",
        "git@github.com permission denied",  # the forges' SSH user, no person
        "noreply@github.com mails",
        "npm install react@18.2.0",
        "@types/node mismatch",
        "user@localhost",  # no domain that leaves the house
        "email me @ noon",
        "what does @ mean",
        "price 5@3 for 2",
    ],
)
def test_email_near_misses_are_not_flagged(text):
    assert flagged(text) == []


@pytest.mark.parametrize(
    "number",
    [
        "+1 415 555 2671",
        "+1-415-555-2671",
        "+14155552671",
        "+44 20 7946 0958",
        "+44 (0)20 7946 0958",
        "+49 30 901820",
        "+33 6 12 34 56 78",
        "+61 412 345 678",
        "+81 90-1234-5678",
        "0049 30 901820",
        "(415) 555-2671",
        "(415)555-2671",
        "415-555-2671",
        "415.555.2671",
        "415 555 2671",
        "1-415-555-2671",
        "1 (415) 555-2671",
        "555-123-4567",  # the fictional exchange the examples use
        "020 7946 0958",
        "07700 900123",
        "030 12345678",
        "0151 12345678",
        "01 23 45 67 89",
        "(02) 9876 5432",
        "03-1234-5678",
        "06-12345678",
        "%2B1%20415%20555%202671",
        "＋４４ ２０ ７９４６ ０９５８",
    ],
)
def test_a_phone_number_is_flagged_in_any_usual_format(number):
    assert flagged(f"who owns {number} ?") == [(number, "phone_number")]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("call me on 612 34 56 78", "612 34 56 78"),
        ("my number is 4155552671", "4155552671"),
        ("text 07700900123 tonight", "07700900123"),
        ("phone: 555-1234", "555-1234"),
        ("our number 0301234567 changed", "0301234567"),
        ("whatsapp 5511987654321", "5511987654321"),
    ],
)
def test_a_number_said_to_be_a_phone_number_is_flagged(text, number):
    assert flagged(text) == [(number, "phone_number")]


@pytest.mark.parametrize(
    "text",
    [
        "1-800-275-2273 apple support",  # toll-free: published by businesses
        "+1 888 280 4331",
        "+800 1234 5678",
        "0800 800 150 freephone",
        "ISBN 978-3-16-148410-0",
        "isbn 0-306-40615-2",
        "order 555-123-4567 status",  # says what kind of number it is
        "serial 020 7946 0958",
        "2024-01-15 and 15.01.2024 and 01/15/2024",
        "01.02.2024 10:30",
        "02.10.2023 14.30 Uhr",
        "zip 94043-1351",
        "4111 1111 1111 1111",
        "1920x1080 at 144hz",
        "3840 x 2160",
        "$1,299.99",
        "price $555 123 4567",
        "10-15 minutes",
        "1990-2024",
        "call of duty 2023",  # "call", but no number of seven digits
        "ups 1Z999AA10123456784",
        "usps 9400 1000 0000 0000 0000 00",
        "error 0x80070005",
        "cve-2024-3094",
        "12345678",
        "+5 points",
        "+2000 steps",
        "4155552671",  # ten digits alone: an order number as often as a phone
        "911 and 112",
        "(911) 555-0100",  # N11 is never an area code
        "192 168 1234 5678",
    ],
)
def test_phone_number_near_misses_are_not_flagged(text):
    assert [k for _, k in flagged(text) if k == "phone_number"] == []


def test_an_address_is_not_read_as_a_phone_number_too():
    assert flagged("0172.016.0001.0020") == [("0172.016.0001.0020", "private_address")]


def test_a_login_on_a_home_network_host_is_judged_by_its_host_name():
    assert flagged("ssh pi@raspberrypi.local") == []
    assert flagged("ssh maya@mayas-laptop.local") == [("mayas-laptop.local", "local_host_name")]
