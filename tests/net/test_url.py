"""parse_url / parse_host: one reading of every spelling, or a refusal."""

from __future__ import annotations

from ipaddress import ip_address

import pytest

from sovereign.net import InvalidURL, TargetRejected, Verdict, parse_host, parse_url


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("HTTPS://Example.COM/", "https://example.com/"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com:80/a?b=c#frag", "http://example.com/a?b=c"),
        ("http://example.com:0080/", "http://example.com/"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
        ("http://example.com./", "http://example.com/"),
        ("https://münchen.de/", "https://xn--mnchen-3ya.de/"),
        ("http://%6c%6f%63%61%6c%68%6f%73%74/", "http://localhost/"),
        ("http://localhost%E3%80%82/", "http://localhost/"),
        ("http://127。0。0。1/", "http://127.0.0.1/"),
        ("http://①②⑦.⓪.⓪.①/", "http://127.0.0.1/"),
        ("http://[0:0:0:0:0:ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/"),
        ("http://some_host.example/", "http://some_host.example/"),
    ],
)
def test_every_spelling_has_one_canonical_reading(text: str, canonical: str) -> None:
    assert parse_url(text).url == canonical


@pytest.mark.parametrize(
    "text",
    ["http://127.1/", "http://2130706433/", "http://0x7f.1/", "http://0177.0.0.1/",
     "http://127.000.000.001/", "http://0/", "http://0x/", "http://1.2.3.4.5/",
     "http://7147006462/", "http://foo.0x10/"],
)
def test_non_canonical_numeric_hosts_are_refused_as_destinations(text: str) -> None:
    with pytest.raises(TargetRejected) as caught:
        parse_url(text)
    assert caught.value.verdict is Verdict.NON_CANONICAL_NUMERIC_HOST


@pytest.mark.parametrize(
    "text",
    ["http://user:pass@example.com/", "http://example.com@127.0.0.1/", "http://a@b@127.0.0.1/"],
)
def test_userinfo_is_refused_whatever_follows_it(text: str) -> None:
    with pytest.raises(TargetRejected) as caught:
        parse_url(text)
    assert caught.value.verdict is Verdict.USERINFO


@pytest.mark.parametrize(
    "text",
    ["ftp://example.com/", "file:///etc/passwd", "//example.com/", "example.com",
     "http:/example.com/", "http:\\\\example.com\\", "http://exa mple.com/",
     "http://example.com/\r\nX: y", " http://example.com/", "http://\x00example.com/",
     "http://example.com:0/", "http://example.com:65536/", "http://example.com:+80/",
     "http://example.com:0x50/", "http://example.com:\uff18\uff10/", "http://[v1.fe80::a+en1]/",
     "http://[::1/", "http://[::1]x/", "http://example.com[127.0.0.1]/", "http://ex%00ample.com/",
     "http://%ff/", "http:///path", "http://-bad-.example/", "http://" + "a" * 64 + ".com/",
     "http://\u0661\u0662\u0667.\u0660.\u0660.\u0661/", "http://" + "a" * 9000 + ".com/"],
)
def test_malformed_urls_are_invalid(text: str) -> None:
    with pytest.raises(InvalidURL):
        parse_url(text)


def test_zone_identifier_is_kept_so_the_classifier_can_refuse_it() -> None:
    host = parse_host("[fe80::1%25eth0]")
    assert host.address == ip_address("fe80::1%eth0")


def test_a_4_kib_path_is_accepted() -> None:
    path = "/p" * 2048
    assert parse_url("https://example.com" + path).path_and_query == path
