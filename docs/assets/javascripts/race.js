/* Pause, play and restart the animated race figures (built by scripts/figures/race.py).
 *
 * The figures animate by themselves with SMIL; this script adds the drawing, the readout and control:
 * - puts each figure's drawing into its <svg>: the page ships it in a <template>, which costs
 *   nothing while the page loads; a figure is drawn as it comes near the view, the others one
 *   at a time when the browser is idle, and all of them before printing;
 * - writes the readout: each text marked data-race-frames lists its string for every frame
 *   ("|" between them), and the one the animation clock is at is shown (a page carries one
 *   text per value instead of a film strip of every frame, which would slow the whole page);
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
  var nearby = null; /* draws a figure that comes near the view */
  var undrawn = []; /* figures still to draw when the browser is idle */
  var idleScheduled = false;
  var following = []; /* races whose readout follows their clock, frame by frame */
  var ticking = false;
  var readouts = typeof WeakMap === "function" ? new WeakMap() : null;

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

  /* Each readout text and its frames' strings, read once per figure. */
  function slotsOf(race) {
    var slots = readouts && readouts.get(race);
    if (!slots) {
      slots = Array.prototype.map.call(race.querySelectorAll("[data-race-frames]"), function (text) {
        return { text: text, frames: text.getAttribute("data-race-frames").split("|"), shown: -1 };
      });
      if (readouts && slots.length) {
        readouts.set(race, slots);
      }
    }
    return slots;
  }

  /* Show the frame the clock is at: frame k covers [k, k + 1) / frames of the animation. */
  function drawReadout(race, svg) {
    var end = duration(race);
    var time = svg.getCurrentTime();
    slotsOf(race).forEach(function (slot) {
      var count = slot.frames.length;
      var k = end > 0 ? Math.max(0, Math.min(count - 1, Math.floor((time * count) / end))) : count - 1;
      if (k !== slot.shown) {
        slot.text.textContent = slot.frames[k];
        slot.shown = k;
      }
    });
  }

  function tick() {
    following = following.filter(function (race) {
      var svg = svgOf(race);
      if (!svg || !race.isConnected) {
        return false;
      }
      drawReadout(race, svg);
      return !svg.animationsPaused() && !isOver(race, svg);
    });
    ticking = following.length > 0;
    if (ticking) {
      window.requestAnimationFrame(tick);
    }
  }

  /* Keep the readout in step until the race is paused or over (no work when motion is reduced: it is hidden). */
  function follow(race) {
    var svg = svgOf(race);
    if (!svg || (reducedMotion !== null && reducedMotion.matches)) {
      return;
    }
    drawReadout(race, svg);
    if (following.indexOf(race) < 0) {
      following.push(race);
    }
    if (!ticking) {
      ticking = true;
      window.requestAnimationFrame(tick);
    }
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
    follow(race);
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
    follow(race); /* shows the first frame */
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
      follow(race);
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

  /* Move the drawing from the figure's <template> into its <svg>, once; then set the figure up. */
  function draw(race) {
    var template = race.querySelector("template.race__drawing");
    var svg = race.querySelector("svg");
    if (template && svg) {
      var drawing = template.content.querySelector("svg");
      while (drawing && drawing.firstChild) {
        svg.appendChild(drawing.firstChild);
      }
      template.remove();
    }
    if (nearby) {
      nearby.unobserve(race);
    }
    setUp(race);
  }

  function drawAll() {
    document.querySelectorAll(SELECTOR).forEach(draw);
    undrawn = [];
  }

  function idle(then) {
    if (window.requestIdleCallback) {
      window.requestIdleCallback(then, { timeout: 4000 });
    } else {
      window.setTimeout(then, 200);
    }
  }

  /* One figure per idle period, so that no single task grows long. */
  function drawWhenIdle() {
    if (idleScheduled) {
      return;
    }
    idleScheduled = true;
    idle(function () {
      idleScheduled = false;
      var race = undrawn.shift();
      while (race && (race.hasAttribute("data-race-ready") || !race.isConnected)) {
        race = undrawn.shift();
      }
      if (race) {
        draw(race);
      }
      if (undrawn.length) {
        drawWhenIdle();
      }
    });
  }

  function onNear(entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) {
        draw(entry.target);
      }
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
    /* Every figure waits for the observer's first report, which also covers the ones already in
     * view: asking the page where a figure is would force a layout while the page is loading. */
    if (observer && svgOf(race)) {
      hold(race);
      observer.observe(race);
    } else {
      follow(race);
    }
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
    if (nearby) {
      nearby.disconnect();
    }
    following = [];
    var observes = "IntersectionObserver" in window;
    observer = observes ? new IntersectionObserver(onSight, { threshold: 0.4 }) : null;
    nearby = observes ? new IntersectionObserver(onNear, { rootMargin: "50% 0px" }) : null;
    undrawn = Array.prototype.slice.call(document.querySelectorAll(SELECTOR));
    if (!nearby) {
      drawAll();
      return;
    }
    undrawn.forEach(function (race) {
      nearby.observe(race);
    });
    drawWhenIdle();
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
      panel.querySelectorAll(SELECTOR).forEach(function (race) {
        draw(race);
        restart(race);
      });
    }
  });

  window.addEventListener("beforeprint", drawAll);

  if (reducedMotion && reducedMotion.addEventListener) {
    reducedMotion.addEventListener("change", function () {
      document.querySelectorAll(SELECTOR).forEach(function (race) {
        showButtons(race);
        follow(race);
      });
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
