"""OpenTelemetry set up the way an application does it: the SDK as the global tracer provider,
spans sent to the OTLP/HTTP endpoint in ``DG_OTLP_ENDPOINT`` (one service name per process, one
Phoenix project per test run in ``DG_OTLP_PROJECT``), then ``dispatchguard.instrument()``."""

from __future__ import annotations

import os


def setup(service: str) -> object:
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    import dispatchguard

    resource = Resource.create({"service.name": service,
                                "openinference.project.name": os.environ["DG_OTLP_PROJECT"]})
    provider = TracerProvider(resource=resource)
    # exported as each span ends: nothing is left in a queue when the process stops
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=os.environ["DG_OTLP_ENDPOINT"])))
    trace.set_tracer_provider(provider)
    dispatchguard.instrument()
    return provider
