"""Fixtures for the tracing tests: the OpenTelemetry SDK's in-memory span exporter and metric reader,
and dispatchguard instrumented with them for one test."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk.trace")


class Traced:
    """The spans and metrics one test produced."""

    def __init__(self, exporter, reader) -> None:
        self.exporter = exporter
        self.reader = reader

    def spans(self) -> list:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list:
        return [span for span in self.spans() if span.name == name]

    def one(self, name: str):
        found = self.named(name)
        assert len(found) == 1, f"{len(found)} spans named {name!r} in {[s.name for s in self.spans()]}"
        return found[0]

    def durations(self) -> dict[tuple, int]:
        """The tool-duration histogram's counts by (tool name, error type)."""
        counts: dict[tuple, int] = {}
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name != "dispatchguard.tool.duration":
                        continue
                    for point in metric.data.data_points:
                        key = (point.attributes.get("gen_ai.tool.name"), point.attributes.get("error.type"))
                        counts[key] = counts.get(key, 0) + point.count
        return counts


@pytest.fixture(scope="session")
def _providers():
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    yield exporter, reader, tracer_provider, meter_provider
    tracer_provider.shutdown()
    meter_provider.shutdown()


@pytest.fixture
def traced(_providers):
    """dispatchguard instrumented with in-memory providers for this test (the global providers are
    one per process and the framework packages set their own, so the tests pass theirs)."""
    import dispatchguard

    exporter, reader, tracer_provider, meter_provider = _providers
    exporter.clear()
    dispatchguard.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
    yield Traced(exporter, reader)
    dispatchguard.uninstrument()
    exporter.clear()


@pytest.fixture
def tracer(_providers):
    """A tracer of the same in-memory provider, for the tests' own parent spans."""
    return _providers[2].get_tracer("tests")
