"""The bot address guard judges the IPv4 address that IPv6 transition forms carry (6to4, Teredo, NAT64,
IPv4-mapped and IPv4-compatible), and its messages read as English."""

import socket

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots_api.client import address_problem, check_endpoint_url
from bots_api.models import Bot

#: IPv6 addresses whose embedded IPv4 is inside (private, loopback, link-local): each must be refused
INSIDE = [
    ("2002:0a00:0001::1", "10.0.0.1"),  # 6to4 of a private address
    ("2002:7f00:0001::1", "127.0.0.1"),  # 6to4 of loopback (loopback is off in these tests)
    ("2002:a9fe:a9fe::1", "169.254.169.254"),  # 6to4 of the cloud metadata address
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "10.0.0.1"),  # Teredo, client 10.0.0.1 (obfuscated in the address)
    ("64:ff9b::a00:1", "10.0.0.1"),  # NAT64 of a private address
    ("64:ff9b::c0a8:0101", "192.168.1.1"),
    ("::ffff:10.0.0.1", "10.0.0.1"),  # IPv4-mapped
    ("::ffff:127.0.0.1", "127.0.0.1"),
    ("::10.0.0.1", "10.0.0.1"),  # IPv4-compatible (deprecated, still parsed)
]


@pytest.mark.parametrize("ip, inner", INSIDE)
def test_the_guard_judges_the_ipv4_inside_transition_addresses(ip, inner, settings):
    settings.BOTS_ALLOW_LOOPBACK = False
    problem = address_problem(ip)
    assert problem is not None and inner in problem, (ip, problem)


@pytest.mark.parametrize("ip", ["2002:0808:0808::1", "64:ff9b::808:808", "::ffff:8.8.8.8", "8.8.8.8",
                                "2606:4700:4700::1111"])
def test_the_guard_lets_public_addresses_through_also_when_embedded(ip, settings):
    settings.BOTS_ALLOW_LOOPBACK = False
    assert address_problem(ip) is None


@pytest.mark.parametrize("ip, words", [
    ("10.0.0.1", "a private address"), ("169.254.1.1", "a link-local address"), ("224.0.0.1", "a multicast address"),
    ("0.0.0.0", "an unspecified address"), ("240.0.0.1", "a reserved address"), ("127.0.0.1", "a loopback address"),
    ("100.64.0.1", "not a public address"), ("::1", "a loopback address"),
])
def test_the_guard_messages_read_as_english(ip, words, settings):
    settings.BOTS_ALLOW_LOOPBACK = False
    assert address_problem(ip) == words


def _resolving(monkeypatch, host, ip):
    real = socket.getaddrinfo

    def fake(name, port, *args, **kwargs):
        if name == host:
            return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (ip, port, 0, 0))]
        return real(name, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)


def test_the_registration_message_has_no_doubled_words(monkeypatch, settings):
    settings.BOTS_ALLOW_LOOPBACK = False
    _resolving(monkeypatch, "cgnat.example.net", "::ffff:100.64.0.1")
    with pytest.raises(ValueError) as err:
        check_endpoint_url("https://cgnat.example.net/bot")
    message = str(err.value)
    assert "address address" not in message and "a not" not in message
    assert "resolves to ::ffff:100.64.0.1, which is an IPv4-mapped address of 100.64.0.1, not a public address" \
        in message
    assert message.endswith("bots must be reachable on a public address")


@pytest.mark.django_db
def test_registering_a_bot_on_a_6to4_address_of_a_private_network_is_refused(monkeypatch, settings):
    settings.BOTS_ALLOW_LOOPBACK = False
    _resolving(monkeypatch, "sixtofour.example.net", "2002:c0a8:101::1")
    user = get_user_model().objects.create_user("ada6", password="pw-ada-123")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    response = api.post("/api/bots/", {"name": "Tunnel", "endpoint_url": "http://sixtofour.example.net/"},
                        format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["error"] == "invalid_endpoint"
    assert "2002:c0a8:101::1, which is a 6to4 address of 192.168.1.1, a private address" in body["detail"]
    assert not Bot.objects.exists()


def test_a_name_resolving_to_a_6to4_address_of_loopback_is_never_connected_to(monkeypatch, settings):
    from bots_api.client import BotFault, post_json

    settings.BOTS_ALLOW_LOOPBACK = False
    _resolving(monkeypatch, "inside.example.net", "2002:7f00:1::1")
    with pytest.raises(BotFault) as fault:
        post_json("http://inside.example.net/bot", "s3cret", {"protocol": 1, "type": "ping"}, 500)
    assert fault.value.kind == "address" and "6to4 address of 127.0.0.1, a loopback address" in fault.value.cause


#: ranges Python's ``is_global`` calls public (or does not know) that the guard refuses by name
NAMED_RANGES = [
    ("fec0::1", "site-local"), ("fec0:1234::5", "site-local"), ("feff::1", "site-local"),
    ("192.0.0.8", "192.0.0.0/24"), ("192.0.0.9", "192.0.0.0/24"), ("192.0.0.170", "192.0.0.0/24"),
    ("192.88.99.1", "6to4 relay"), ("3fff::1", "documentation"), ("3fff:fff::1", "documentation"),
    ("2001:db8::1", "documentation"), ("100::1", "discard"), ("192.0.2.1", "documentation"),
    ("2002:c058:6301::1", "6to4 relay"),  # 6to4 of 192.88.99.1
]


@pytest.mark.parametrize("ip, words", NAMED_RANGES)
def test_the_guard_refuses_ranges_python_calls_public(ip, words, settings):
    settings.BOTS_ALLOW_LOOPBACK = False
    problem = address_problem(ip)
    assert problem is not None, ip
    if words.endswith("/24"):
        assert "RFC 6890" in problem
    else:
        assert words in problem, (ip, problem)


@pytest.mark.parametrize("ip", ["4000::1", "192.0.1.1", "192.88.100.1", "3fff:1000::1", "fe00::1"])
def test_the_named_ranges_stop_at_their_edges(ip, settings):
    settings.BOTS_ALLOW_LOOPBACK = False
    assert address_problem(ip) is None or "reserved" in address_problem(ip)  # fe00:: is reserved, not site-local
    assert "site-local" not in (address_problem(ip) or "")


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["http://[fec0::1]/", "http://192.0.0.8/", "http://192.88.99.1/",
                                 "http://[3fff::1]/", "http://[2001:db8::1]/", "http://[100::1]/"])
def test_registering_a_bot_on_a_named_range_is_refused_by_the_api(url, settings):
    settings.BOTS_ALLOW_LOOPBACK = False
    user = get_user_model().objects.create_user("ada7", password="pw-ada-123")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    response = api.post("/api/bots/", {"name": "Inside", "endpoint_url": url}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "invalid_endpoint"
    assert "bots must be reachable on a public address" in response.json()["detail"]
    assert not Bot.objects.exists()
