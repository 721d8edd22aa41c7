"""One registry of views: `roofline plot --view` offers exactly the
registered views (and auto), its help lists them, and the report names and
captions its roofline charts from the same entries."""
from __future__ import annotations

from pathlib import Path

from roofline.render import views as registry
from roofline.report import build_report

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _plot_parser():
    import argparse

    from roofline.cli import plot
    parser = argparse.ArgumentParser()
    plot.add_parser(parser.add_subparsers())
    return parser._subparsers._group_actions[0].choices["plot"]


def test_plot_offers_the_registered_views_and_lists_them():
    sub = _plot_parser()
    (view,) = [a for a in sub._actions if a.dest == "view"]
    assert tuple(view.choices) == registry.choices() == ("auto", "hierarchical", "cache-aware", "instruction")
    for key in registry.VIEWS:
        assert f"\n  {key} " in sub.epilog


def test_a_view_added_to_the_registry_is_offered(monkeypatch):
    extra = registry.View("test-view", "a view for this test", "caption", "roofline-test-view")
    monkeypatch.setitem(registry.VIEWS, "test-view", extra)
    sub = _plot_parser()
    (view,) = [a for a in sub._actions if a.dest == "view"]
    assert "test-view" in view.choices and "a view for this test" in sub.epilog


def test_report_charts_are_named_and_captioned_by_the_registry():
    r = build_report([EXAMPLES / "ece408_kernels.csv"], "v100-sxm2")
    assert r.views() == ["cache-aware"]                               # no row with bytes at two levels
    assert set(r.figures()) >= {registry.VIEWS["cache-aware"].figure}
    figure = [b for s in r.document().sections for b in s.blocks if getattr(b, "key", None) == "roofline-cache-aware"]
    assert figure and figure[0].caption.startswith(registry.VIEWS["cache-aware"].caption)
    assert registry.choose("auto", r.placements) == "cache-aware"
    assert registry.choose("hierarchical", r.placements) == "hierarchical"
