"""The OpenAPI document of the /chat service, exercised by schemathesis (bounded)."""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, given, settings

from dispatchguard.server import create_app


@pytest.fixture
def api_schema(registry, llm, llm_server):
    # Any message gets an answer; agent/work modes run the loop, whose first step answers.
    llm_server.set_script([], default="A scripted answer.")
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(registry, llm))


def test_api_conforms_to_its_openapi_document(api_schema):
    # schemathesis.pytest.from_fixture does not work with this pytest; drive hypothesis directly,
    # one bounded run per operation so each gets its share of examples.
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert {op.label for op in operations} == {
        "GET /healthz", "POST /chat", "POST /chat/{request_id}/cancel",
    }
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
        def check(case):
            case.call_and_validate()

        check()


def test_openapi_documents_the_contract(registry, llm):
    from fastapi.testclient import TestClient

    doc = TestClient(create_app(registry, llm)).get("/openapi.json").json()
    chat = doc["paths"]["/chat"]["post"]
    assert set(chat["responses"]) >= {"200", "409", "413", "422", "502"}
    response = doc["components"]["schemas"]["ChatResponse"]
    assert {"response", "tools_used", "steps"} <= set(response["required"])
    assert doc["paths"]["/chat/{request_id}/cancel"]["post"]["responses"].keys() >= {"202", "404"}
