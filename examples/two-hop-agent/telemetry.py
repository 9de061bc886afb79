"""The app's OpenTelemetry setup, as an instrumented app has it: a tracer provider set at
import. A real app adds an exporter (OTLP to its collector); ragguard needs none: it reads
the spans of each call in process."""

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

if not isinstance(trace.get_tracer_provider(), TracerProvider):
    trace.set_tracer_provider(TracerProvider())

tracer = trace.get_tracer("two-hop-agent")
