"""The OpenAPI document of the /chat service, exercised by schemathesis: every generated request
(valid and invalid bodies, paths and headers) gets a documented answer and never a 5xx."""

from __future__ import annotations

import os
from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import negative_data_rejection

from dispatchguard.server import create_app


@pytest.fixture
def api_schema(registry, llm, llm_server):
    # Any message gets an answer; agent/work modes run the loop, whose first step answers.
    llm_server.set_script([], default="A scripted answer.")
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(registry, llm))


def exercise(api_schema, examples_per_operation: int) -> Counter:
    """Run schemathesis' checks on generated cases (positive and negative); count the statuses."""
    # schemathesis.pytest.from_fixture does not work with this pytest; drive hypothesis directly,
    # one bounded run per operation so each gets its share of examples.
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert {op.label for op in operations} == {
        "GET /healthz", "POST /chat", "POST /chat/{request_id}/cancel",
    }
    statuses: Counter = Counter()
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            if mode is GenerationMode.NEGATIVE and operation.label == "GET /healthz":
                continue  # nothing to get wrong: no body, no parameters

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=examples_per_operation, deadline=None,
                      suppress_health_check=list(HealthCheck), database=None)
            def check(case):
                response = case.call()
                statuses[response.status_code] += 1
                assert response.status_code < 500, (case.body, response.status_code, response.text)
                # A generated body above the size limit is refused as such (413, documented) before
                # anything checks its fields, which schemathesis' negative-data check does not expect.
                excluded = [negative_data_rejection] if response.status_code == 413 else []
                case.validate_response(response, excluded_checks=excluded)

            check()
    return statuses


# `make test` runs 300 cases per operation and mode (about 1 200, 35 s of CPU under coverage; a run of
# 80 per operation beside it added nothing these do not check); the thorough hypothesis profile
# (DG_HYPOTHESIS_PROFILE=thorough) runs 1 000 (about 4 000, two minutes).
MANY = 1000 if os.environ.get("DG_HYPOTHESIS_PROFILE") == "thorough" else 300


@pytest.mark.slow
def test_api_conforms_to_its_openapi_document_thousands_of_cases(api_schema):
    statuses = exercise(api_schema, MANY)
    print(f"schemathesis: {sum(statuses.values())} cases, statuses {dict(sorted(statuses.items()))}")
    assert sum(statuses.values()) >= 3 * MANY
    assert statuses[200] and statuses[422]  # both valid and invalid requests were generated
    assert not [code for code in statuses if code >= 500]


def test_openapi_documents_the_contract(registry, llm):
    from fastapi.testclient import TestClient

    doc = TestClient(create_app(registry, llm)).get("/openapi.json").json()
    chat = doc["paths"]["/chat"]["post"]
    assert set(chat["responses"]) >= {"200", "409", "413", "422", "502", "503", "504"}
    response = doc["components"]["schemas"]["ChatResponse"]
    assert {"response", "tools_used", "steps"} <= set(response["required"])
    assert doc["paths"]["/chat/{request_id}/cancel"]["post"]["responses"].keys() >= {"202", "404"}
