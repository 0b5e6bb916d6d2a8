/* Pause, play and restart the animated race figures (built by scripts/figures/race.py).
 *
 * The figures animate by themselves with SMIL; this script only adds control:
 * - shows each figure's Pause/Play and Restart buttons (hidden without JavaScript,
 *   and left hidden when the reader prefers reduced motion: the figure is still then);
 * - holds a figure at its start until it first scrolls into view, so the reader sees it run;
 * - restarts the races in a content tab (pymdownx.tabbed) when that tab is selected.
 * Works with mkdocs-material's instant navigation: setup runs on every page via document$.
 */
(function () {
  "use strict";

  var SELECTOR = ".race";
  var reducedMotion = window.matchMedia
    ? window.matchMedia("(prefers-reduced-motion: reduce)")
    : null;
  var observer = null;

  function svgOf(race) {
    var svg = race.querySelector("svg");
    return svg && typeof svg.setCurrentTime === "function" ? svg : null;
  }

  function duration(race) {
    return parseFloat(race.getAttribute("data-race-duration")) || 0;
  }

  function button(race, action) {
    return race.querySelector('[data-race-action="' + action + '"]');
  }

  /* The toggle reads "Pause" while the race runs, "Play" when it is paused or over. */
  function showRunning(race, running) {
    var toggle = button(race, "pause");
    if (toggle) {
      toggle.textContent = running ? "Pause" : "Play";
    }
  }

  function restart(race) {
    var svg = svgOf(race);
    if (!svg) {
      return;
    }
    svg.setCurrentTime(0);
    svg.unpauseAnimations();
    race.removeAttribute("data-race-waiting");
    showRunning(race, true);
  }

  function hold(race) {
    var svg = svgOf(race);
    if (!svg) {
      return;
    }
    svg.pauseAnimations();
    svg.setCurrentTime(0);
    race.setAttribute("data-race-waiting", "");
    showRunning(race, false);
  }

  function isOver(race, svg) {
    var end = duration(race);
    return end > 0 && svg.getCurrentTime() >= end;
  }

  function toggle(race) {
    var svg = svgOf(race);
    if (!svg) {
      return;
    }
    if (isOver(race, svg) || race.hasAttribute("data-race-waiting")) {
      restart(race);
    } else if (svg.animationsPaused()) {
      svg.unpauseAnimations();
      showRunning(race, true);
    } else {
      svg.pauseAnimations();
      showRunning(race, false);
    }
  }

  function showButtons(race) {
    var hide = !svgOf(race) || (reducedMotion !== null && reducedMotion.matches);
    race.querySelectorAll("[data-race-action]").forEach(function (control) {
      control.hidden = hide;
    });
  }

  function setUp(race) {
    if (race.hasAttribute("data-race-ready")) {
      return;
    }
    race.setAttribute("data-race-ready", "");
    showButtons(race);
    var clock = race.querySelector("[data-race-clock]");
    if (clock) {
      clock.addEventListener("endEvent", function () {
        showRunning(race, false);
      });
    }
    if (observer && svgOf(race) && !inView(race)) {
      hold(race);
      observer.observe(race);
    }
  }

  function inView(element) {
    var box = element.getBoundingClientRect();
    var height = window.innerHeight || document.documentElement.clientHeight;
    return box.height > 0 && box.top < height && box.bottom > 0;
  }

  function onSight(entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) {
        observer.unobserve(entry.target);
        if (entry.target.hasAttribute("data-race-waiting")) {
          restart(entry.target);
        }
      }
    });
  }

  function setUpPage() {
    if (observer) {
      observer.disconnect(); /* figures of the previous page are gone */
    }
    observer = "IntersectionObserver" in window
      ? new IntersectionObserver(onSight, { threshold: 0.4 })
      : null;
    document.querySelectorAll(SELECTOR).forEach(setUp);
  }

  /* The content block a tab's radio input selects: alternate style
   * (.tabbed-content > .tabbed-block, by position) or the legacy style (input, label, content). */
  function tabPanel(input) {
    var set = input.parentElement;
    var inputs = Array.prototype.filter.call(set.children, function (child) {
      return child.matches('input[type="radio"]');
    });
    var blocks = set.querySelectorAll(":scope > .tabbed-content > .tabbed-block");
    if (blocks.length) {
      return blocks[inputs.indexOf(input)] || null;
    }
    var label = input.nextElementSibling;
    return label ? label.nextElementSibling : null;
  }

  document.addEventListener("click", function (event) {
    var control = event.target.closest && event.target.closest("[data-race-action]");
    var race = control && control.closest(SELECTOR);
    if (!race) {
      return;
    }
    if (control.getAttribute("data-race-action") === "restart") {
      restart(race);
    } else {
      toggle(race);
    }
  });

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches('.tabbed-set > input[type="radio"]') || !input.checked) {
      return;
    }
    var panel = tabPanel(input);
    if (panel) {
      panel.querySelectorAll(SELECTOR).forEach(restart);
    }
  });

  if (reducedMotion && reducedMotion.addEventListener) {
    reducedMotion.addEventListener("change", function () {
      document.querySelectorAll(SELECTOR).forEach(showButtons);
    });
  }

  if (typeof document$ !== "undefined" && document$.subscribe) {
    document$.subscribe(setUpPage);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpPage);
  } else {
    setUpPage();
  }
})();
