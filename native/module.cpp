// durak_env._native: the native engine (durak.hpp) and vector core (vector.hpp) for Python, through nanobind.
//
// Python reaches it only through durak_env/native.py, which turns the reference engine's objects (Rules, seeds,
// a Game's facts) into the plain values taken here and checks what the caller passes.  Every entry point
// checks its own arguments too: a wrong value is a ValueError or TypeError, never a crash.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/vector.h>

// numpy's C API makes the AEC environment's fresh observation arrays (Game.observe): a fraction of what
// numpy.empty costs from Python, and no array to check on the way in.
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "durak.hpp"
#include "search.hpp"
#include "solve.hpp"
#include "vector.hpp"

namespace nb = nanobind;
using namespace durak;

namespace {

// native.rules_fields: the Rules fields as ints, in this order.
Rules rules_from(const std::vector<int>& f) {
    if (f.size() != 14) throw std::invalid_argument("native rules take 14 fields");
    Rules r;
    r.num_players = f[0];
    r.deck_size = f[1];
    r.deal_size = f[2];
    r.throw_in = f[3];
    r.before_beaten = f[4];
    r.transfer = f[5];
    r.max_attacks = f[6];
    r.max_attacks_early = f[7];
    r.early_first_discard = f[8];
    r.bout_start = f[9];
    r.after_take = f[10];
    r.no_trump_lead = f[11];
    r.open_discard = f[12];
    r.max_bouts = f[13];
    if (!r.valid()) throw std::invalid_argument("native rules out of range (durak_env.native.rules_fields makes them)");
    return r;
}

void seed_rng(PyRandom& rng, const std::vector<uint32_t>& words) {
    if (words.empty()) throw std::invalid_argument("a seed is at least one 32-bit word");
    rng.seed_words(words.data(), static_cast<int>(words.size()));
}

// A deck: each card of the rules' deck once.
bool whole_deck(const std::vector<int>& cards, int deck_size) {
    Mask seen = 0;
    int low = lowest_rank(deck_size);
    for (int c : cards) {
        if (c < 0 || c >= 52 || rank_of(c) < low || (seen >> c & 1)) return false;
        seen |= Mask(1) << c;
    }
    return static_cast<int>(cards.size()) == deck_size;
}

nb::tuple result_tuple(const Game& g) {
    nb::list placings, points, drawn;
    for (int s = 0; s < g.n; ++s) {
        placings.append(g.result.placings[s]);
        points.append(g.result.points[s]);
    }
    for (int i = 0; i < g.result.drawn_count; ++i) drawn.append(g.result.drawn_seats[i]);
    nb::object fool = nb::none();
    if (g.result.fool >= 0) fool = nb::int_(g.result.fool);
    return nb::make_tuple(nb::tuple(placings), nb::tuple(points), fool, nb::tuple(drawn), g.result.capped);
}

template <typename T>
using Rows = nb::ndarray<T, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
template <typename T>
using Column = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// The vector core with the caller's arrays held: they stay alive and in place while it does.
struct Vector {
    VectorCore core;
    Rows<float> obs;
    Rows<int8_t> mask;
    Column<int64_t> seats;
    Rows<float> rewards;
    Column<bool> ended, truncated;

    Vector(const std::vector<int>& rules, int envs, int limit, Rows<float> o, Rows<int8_t> m, Column<int64_t> s,
           Rows<float> r, Column<bool> e, Column<bool> t, int threads)
        : core(rules_from(rules), checked(envs, limit, threads), limit, threads), obs(o), mask(m), seats(s),
          rewards(r), ended(e), truncated(t) {
        size_t n = static_cast<size_t>(envs);
        auto shape = [&](size_t rows, size_t cols, size_t want_cols, const char* name) {
            if (rows != n || cols != want_cols)
                throw std::invalid_argument(std::string("the vector core's ") + name + " array has the wrong shape");
        };
        shape(obs.shape(0), obs.shape(1), core.obs_size, "obs");
        shape(mask.shape(0), mask.shape(1), core.num_actions, "mask");
        shape(seats.shape(0), 1, 1, "seats");
        shape(rewards.shape(0), rewards.shape(1), core.rules.num_players, "rewards");
        shape(ended.shape(0), 1, 1, "ended");
        shape(truncated.shape(0), 1, 1, "truncated");
        core.a = Arrays{obs.data(), mask.data(), seats.data(), rewards.data(), ended.data(), truncated.data()};
    }

    static int checked(int envs, int limit, int threads) {
        if (envs < 1 || limit < 1) throw std::invalid_argument("num_envs and max_moves must be positive");
        if (threads < 1 || threads > 256) throw std::invalid_argument("threads must be from 1 to 256");
        return envs;
    }

    const int64_t* actions(const Column<int64_t>& acts) const {
        if (acts.shape(0) != static_cast<size_t>(core.num_envs))
            throw std::invalid_argument("one action per deal");
        return acts.data();
    }
};

// native.view_fields: a SeatView's fields in the order the search takes them.
View view_from(const std::vector<int>& rules, int seat, Mask hand, const std::vector<int>& attacks,
               const std::vector<int>& defences, int trump_card, int stock_size, const std::vector<int>& hand_sizes,
               const std::vector<Mask>& known, int64_t discard, const std::vector<std::vector<int>>& out_groups,
               int attacker, int defender, int opener, int passed, bool taking, int bouts, int first_seat) {
    View v;
    v.rules = rules_from(rules);
    size_t n = static_cast<size_t>(v.rules.num_players);
    if (seat < 0 || seat >= v.rules.num_players || hand_sizes.size() != n || known.size() != n ||
        attacks.size() != defences.size() || attacks.size() > MAX_TABLE || stock_size < 0 || stock_size > 52 ||
        out_groups.size() > MAX_PLAYERS)
        throw std::invalid_argument("a view's fields out of range");
    v.seat = seat;
    v.hand = hand;
    for (size_t i = 0; i < attacks.size(); ++i) {
        if (attacks[i] < 0 || attacks[i] >= 52 || defences[i] < -1 || defences[i] >= 52)
            throw std::invalid_argument("a view's table holds no such card");
        v.attacks.push_back(static_cast<int8_t>(attacks[i]));
        v.defences.push_back(static_cast<int8_t>(defences[i]));
    }
    if (trump_card < 0 || trump_card >= 52) throw std::invalid_argument("a view's trump card out of range");
    v.trump_card = trump_card;
    v.stock_size = stock_size;
    for (size_t s = 0; s < n; ++s) {
        if (hand_sizes[s] < 0 || hand_sizes[s] > 52) throw std::invalid_argument("a view's hand size out of range");
        v.hand_sizes[s] = hand_sizes[s];
        v.known[s] = known[s];
    }
    v.discard_open = discard >= 0;
    v.discard = discard >= 0 ? static_cast<Mask>(discard) : 0;
    for (const auto& group : out_groups) {
        if (v.out_seats.size() + group.size() > MAX_PLAYERS) throw std::invalid_argument("bad out_groups");
        for (int s : group) v.out_seats.push_back(static_cast<int8_t>(s < 0 || s > 63 ? 99 : s));
        v.group_ends.push_back(static_cast<int8_t>(v.out_seats.size()));
    }
    v.attacker = attacker, v.defender = defender, v.opener = opener;
    v.passed = passed, v.taking = taking, v.bouts = bouts, v.first_seat = first_seat;
    return v;
}

}  // namespace

// ObservationEncoder.mask_game: the legal moves (1) where ``seat`` is to act, else all zero.
static void write_mask(Game& g, int seat, int8_t* out) {
    std::memset(out, 0, g.lay.size());
    if (g.over || seat != g.to_act) return;
    int count = g.legal_actions();
    for (int i = 0; i < count; ++i) out[g.legal[i]] = 1;
}

NB_MODULE(_native, m) {
    m.doc() = "The native Durak engine and vector core; durak_env.native is its Python face.";
    if (_import_array() < 0) throw nb::python_error();
    m.attr("MAX_ACTIONS") = MAX_ACTIONS;

    nb::class_<Game>(m, "Game")
        .def("__init__", [](Game* g, const std::vector<int>& rules, const std::vector<uint32_t>& seed, int first) {
            Rules r = rules_from(rules);
            if (first < 0 || first >= r.num_players) throw std::invalid_argument("first_seat out of range");
            PyRandom rng;
            seed_rng(rng, seed);
            new (g) Game();
            g->deal_seeded(r, rng, first);
        })
        .def_static("from_deck", [](const std::vector<int>& rules, const std::vector<int>& cards, int first) {
            Rules r = rules_from(rules);
            if (first < 0 || first >= r.num_players) throw std::invalid_argument("first_seat out of range");
            if (!whole_deck(cards, r.deck_size)) throw std::invalid_argument("from_deck needs each card of the deck once");
            std::vector<int8_t> deck(cards.begin(), cards.end());
            Game g;
            if (!g.deal(r, deck.data(), r.deck_size, first)) throw std::invalid_argument("redeal");
            return g;
        })
        .def_static("assemble", [](const std::vector<int>& rules, int trump_card, const std::vector<int>& stock,
                                   const std::vector<Mask>& hands, Mask discard, const std::vector<Mask>& known,
                                   const std::vector<std::vector<int>>& out_groups, const std::vector<int>& attacks,
                                   const std::vector<int>& defences, int attacker, int defender, int opener,
                                   int passed, bool taking, int bouts, int first_seat) {
            Rules r = rules_from(rules);
            size_t n = static_cast<size_t>(r.num_players);
            if (hands.size() != n || known.size() != n || attacks.size() != defences.size() ||
                attacks.size() > MAX_TABLE || stock.size() > 52 || out_groups.size() > MAX_PLAYERS)
                throw std::invalid_argument("facts of the wrong length (snapshot.py validates them first)");
            auto small = [](int v) { return static_cast<int8_t>(v < -1 || v > 63 ? 99 : v); };  // 99: refused below
            std::vector<int8_t> pile, out, ends, att, def;
            for (int c : stock) pile.push_back(small(c));
            for (const auto& group : out_groups) {
                if (out.size() + group.size() > MAX_PLAYERS) throw std::invalid_argument("bad out_groups");
                for (int s : group) out.push_back(small(s));
                ends.push_back(static_cast<int8_t>(out.size()));
            }
            for (size_t i = 0; i < attacks.size(); ++i) att.push_back(small(attacks[i])), def.push_back(small(defences[i]));
            Game g;
            if (!g.assemble(r, trump_card < 0 || trump_card > 63 ? 99 : trump_card, pile.data(),
                            static_cast<int>(pile.size()), hands.data(), discard, known.data(), out.data(), ends.data(),
                            static_cast<int>(ends.size()), att.data(), def.data(), static_cast<int>(att.size()), attacker,
                            defender, opener, passed, taking, bouts, first_seat))
                throw std::invalid_argument("facts out of range, or a position between bouts");
            return g;
        })
        .def("clone", [](const Game& g) { return Game(g); })
        .def("legal_actions", [](Game& g) {
            int count = g.legal_actions();
            nb::list out;
            for (int i = 0; i < count; ++i) out.append(g.legal[i]);
            return nb::tuple(out);
        })
        .def("is_legal", [](Game& g, int64_t action) { return g.is_legal(action); })
        .def("play", [](Game& g, int64_t action) {
            // The move, then the seat to act (-1 once the deal is over).
            if (!g.is_legal(action)) throw std::invalid_argument("not a legal action here");
            g.play(static_cast<int>(action));
            return g.to_act;
        })
        .def("try_play", [](Game& g, int64_t action) {
            // Game.step's legal path in one call: play ``action`` if it is legal here and answer the seat to act
            // (-1 once the deal is over), or -2 for an action that is not legal (nothing played).
            if (!g.is_legal(action)) return -2;
            g.play(static_cast<int>(action));
            return g.to_act;
        })
        .def("play_forced", [](Game& g, int64_t limit) {
            nb::list played;
            while (!g.over && limit-- > 0 && g.legal_actions() == 1) {
                played.append(nb::make_tuple(g.to_act, g.legal[0]));
                g.play(g.legal[0]);
            }
            return played;
        })
        .def("refusal", [](Game& g, int64_t action) {
            if (action < INT32_MIN || action > INT32_MAX) return g.over ? int(GAME_OVER) : int(NOT_AN_ACTION);
            return g.refusal(static_cast<int>(action));
        })
        .def("no_transfer", &Game::no_transfer)
        .def("solve", [](Game& g, int64_t node_limit) -> nb::object {
            // Each legal move's exact value for the seat to act (native/solve.hpp), or None where more than
            // ``node_limit`` positions would be searched, or a line runs past ``DEPTH_LIMIT`` moves.
            if (!solvable(g)) throw std::invalid_argument("solve: a 2-player deal going on with an empty stock");
            if (node_limit < 1) throw std::invalid_argument("solve: node_limit must be at least 1");
            Solver solver(node_limit);
            int values[MAX_ACTIONS];
            bool solved;
            {
                nb::gil_scoped_release release;
                solved = solver.solve(g, values);
            }
            if (!solved) return nb::none();
            nb::dict out;
            for (int i = 0; i < g.nlegal; ++i) out[nb::int_(g.legal[i])] = values[i];
            return out;
        }, nb::arg("node_limit") = 1000000)
        .def_prop_ro("to_act", [](const Game& g) { return g.to_act; })
        .def_prop_ro("over", [](const Game& g) { return g.over; })
        .def_prop_ro("result", [](const Game& g) -> nb::object {
            if (!g.over) return nb::none();
            return result_tuple(g);
        })
        .def("rewards", [](const Game& g) {
            if (!g.over) throw std::invalid_argument("the deal is not over");
            nb::list out;
            for (int s = 0; s < g.n; ++s) out.append(static_cast<float>(g.result.reward(s, g.n)));
            return out;
        })
        .def("facts", [](const Game& g) {
            // The stored facts as the reference engine holds them (Game.assemble takes them by these names).
            nb::dict f;
            nb::list stock, hands, known, groups, attacks, defences;
            for (int i = 0; i < g.stock_len; ++i) stock.append(g.stock[i]);
            for (int s = 0; s < g.n; ++s) hands.append(g.hands[s]), known.append(g.known[s]);
            for (int k = 0; k < g.groups; ++k) {
                nb::list group;
                for (int i = k ? g.group_end[k - 1] : 0; i < g.group_end[k]; ++i) group.append(g.out_seats[i]);
                groups.append(nb::tuple(group));
            }
            for (int i = 0; i < g.na; ++i) attacks.append(g.attacks[i]), defences.append(g.defences[i]);
            f["trump_card"] = g.trump_card;
            f["stock"] = stock;
            f["hands"] = hands;
            f["discard"] = g.discard;
            f["known"] = known;
            f["out_groups"] = groups;
            f["attacks"] = attacks;
            f["defences"] = defences;
            f["attacker"] = g.attacker;
            f["defender"] = g.defender;
            f["opener"] = g.opener;
            f["passed"] = g.passed;
            f["taking"] = g.taking;
            f["bouts"] = g.bouts;
            f["first_seat"] = g.first_seat;
            return f;
        })
        .def_prop_ro("last_bout", [](const Game& g) -> nb::object {
            if (!g.has_last_bout) return nb::none();
            nb::list drew;
            for (int s = 0; s < g.n; ++s) drew.append(g.last_bout.drew[s]);
            return nb::make_tuple(g.last_bout.bouts, g.last_bout.defender, g.last_bout.took, g.last_bout.table,
                                  popcount(g.last_bout.table), nb::tuple(drew));
        })
        .def_prop_ro("limit", [](const Game& g) { return g.limit; })
        .def("encode", [](const Game& g, int seat, bool universal, Column<float> out) {
            if (seat < 0 || seat >= g.n) throw std::invalid_argument("seat out of range");
            if (out.shape(0) != static_cast<size_t>(observation_size(g.rules, universal)))
                throw std::invalid_argument("the observation array has the wrong size");
            encode(g, seat, universal, out.data());
        }, nb::arg("seat"), nb::arg("universal"), nb::arg("out").noconvert())
        .def("observe", [](Game& g, int seat) {
            // The AEC environment's observe: ``seat``'s observation in the rules' own layout and its legal-move
            // mask, in two fresh arrays (callers keep them: replay buffers).
            if (seat < 0 || seat >= g.n) throw std::invalid_argument("seat out of range");
            npy_intp obs_size = observation_size(g.rules, false), mask_size = g.lay.size();
            nb::object obs = nb::steal(PyArray_SimpleNew(1, &obs_size, NPY_FLOAT32));
            if (!obs.is_valid()) throw nb::python_error();
            nb::object mask = nb::steal(PyArray_SimpleNew(1, &mask_size, NPY_INT8));
            if (!mask.is_valid()) throw nb::python_error();
            encode(g, seat, false, static_cast<float*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(obs.ptr()))));
            write_mask(g, seat, static_cast<int8_t*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(mask.ptr()))));
            return nb::make_tuple(obs, mask);
        }, nb::arg("seat"));

    m.def("random_moves", [](const std::vector<int>& rules, int64_t deals, uint64_t seed) {
        Rules r = rules_from(rules);
        int64_t moves = 0;
        {
            nb::gil_scoped_release release;
            Rng rng(seed);
            PyRandom deal_rng;
            Game g;
            for (int64_t k = 0; k < deals; ++k) {
                deal_rng.seed(rng.next());
                g.deal_seeded(r, deal_rng, 0);
                for (int count = 0; !g.over && count < 10000; ++count, ++moves) {
                    int legal = g.legal_actions();
                    g.play(g.legal[rng.below(legal)]);
                }
            }
        }
        return moves;
    }, "Deals played by random legal moves (benchmarks/native.py: the engine alone); the moves played.");

    m.def("heuristic_action", [](Game& g) {
        if (g.over || !g.legal_actions()) throw std::invalid_argument("the deal is over, or nobody may move");
        return heuristic_action(g);
    }, "Seed 004's move for the seat to act (baselines/heuristic.py: heuristic_action).");

    m.def("mcts", [](const std::vector<int>& rules, int seat, Mask hand, const std::vector<int>& attacks,
                     const std::vector<int>& defences, int trump_card, int stock_size, const std::vector<int>& hand_sizes,
                     const std::vector<Mask>& known, int64_t discard, const std::vector<std::vector<int>>& out_groups,
                     int attacker, int defender, int opener, int passed, bool taking, int bouts, int first_seat,
                     int64_t playouts, double seconds, uint64_t seed, double exploration, bool heuristic) {
        View v = view_from(rules, seat, hand, attacks, defences, trump_card, stock_size, hand_sizes, known, discard,
                           out_groups, attacker, defender, opener, passed, taking, bouts, first_seat);
        if ((playouts > 0) == (seconds > 0)) throw std::invalid_argument("a budget of playouts or of seconds");
        if (!(exploration >= 0)) throw std::invalid_argument("exploration must be >= 0");
        int64_t made = 0;
        int action;
        {
            nb::gil_scoped_release release;
            MCTS search(seed, exploration, heuristic);
            action = search.search(v, playouts, seconds, made);
        }
        if (action < 0) throw std::invalid_argument("no deal matches this view (its counts do not add up, or the seat "
                                                    "has no move)");
        return nb::make_tuple(action, made);
    }, "search:mcts from one seat's view (baselines/mcts.py): (the move, the playouts made).");

    m.def("heuristic_rollout", [](Game& g, int seat) {
        if (seat < 0 || seat >= g.n) throw std::invalid_argument("seat out of range");
        return heuristic_rollout(g, seat);
    }, "The deal finished by the heuristic at every seat (baselines/search.py: rollout); the seat's reward.");

    m.def("pimc", [](const std::vector<int>& rules, int seat, Mask hand, const std::vector<int>& attacks,
                     const std::vector<int>& defences, int trump_card, int stock_size, const std::vector<int>& hand_sizes,
                     const std::vector<Mask>& known, int64_t discard, const std::vector<std::vector<int>>& out_groups,
                     int attacker, int defender, int opener, int passed, bool taking, int bouts, int first_seat,
                     const std::vector<int>& legal, int worlds, double seconds, uint64_t seed) {
        View v = view_from(rules, seat, hand, attacks, defences, trump_card, stock_size, hand_sizes, known, discard,
                           out_groups, attacker, defender, opener, passed, taking, bouts, first_seat);
        if (legal.empty() || legal.size() > MAX_ACTIONS) throw std::invalid_argument("the view's legal moves, at least one");
        if (worlds < 1 && !(seconds > 0)) throw std::invalid_argument("a budget of worlds or of seconds");
        std::vector<double> totals(legal.size());
        int sampled;
        {
            nb::gil_scoped_release release;
            Rng rng(seed);
            sampled = pimc(v, rng, legal.data(), static_cast<int>(legal.size()), worlds, seconds, totals.data());
        }
        if (sampled == -1) throw std::invalid_argument("no deal matches this view (its counts do not add up)");
        if (sampled == -2) throw std::invalid_argument("a move that is not legal in this view");
        return nb::make_tuple(totals, sampled);
    }, "SearchBot's sampling (baselines/search.py) from one seat's view: (the totals per move, the worlds).");

    nb::class_<NetSearch>(m, "NetSearch")
        .def("__init__", [](NetSearch* ns, const std::vector<int>& rules, int seat, Mask hand,
                            const std::vector<int>& attacks, const std::vector<int>& defences, int trump_card,
                            int stock_size, const std::vector<int>& hand_sizes, const std::vector<Mask>& known,
                            int64_t discard, const std::vector<std::vector<int>>& out_groups, int attacker,
                            int defender, int opener, int passed, bool taking, int bouts, int first_seat, uint64_t seed,
                            double c_puct, bool universal, bool opponents, bool fool_stake, double explore) {
            View v = view_from(rules, seat, hand, attacks, defences, trump_card, stock_size, hand_sizes, known,
                               discard, out_groups, attacker, defender, opener, passed, taking, bouts, first_seat);
            if (!(c_puct >= 0)) throw std::invalid_argument("c_puct must be >= 0");
            if (!(explore >= 0 && explore <= 1)) throw std::invalid_argument("explore must be from 0 to 1");
            new (ns) NetSearch(v, seed, c_puct, universal, opponents, fool_stake);
            ns->explore = explore;
        }, nb::arg("rules"), nb::arg("seat"), nb::arg("hand"), nb::arg("attacks"), nb::arg("defences"),
           nb::arg("trump_card"), nb::arg("stock_size"), nb::arg("hand_sizes"), nb::arg("known"), nb::arg("discard"),
           nb::arg("out_groups"), nb::arg("attacker"), nb::arg("defender"), nb::arg("opener"), nb::arg("passed"),
           nb::arg("taking"), nb::arg("bouts"), nb::arg("first_seat"), nb::arg("seed"), nb::arg("c_puct"),
           nb::arg("universal"), nb::arg("opponents") = false, nb::arg("fool_stake") = false,
           nb::arg("explore") = 0.0)
        .def("descend_batch", [](NetSearch& ns, int size, Rows<float> obs, Rows<int8_t> mask) {
            if (size < 1 || obs.shape(0) < static_cast<size_t>(size) || mask.shape(0) < static_cast<size_t>(size) ||
                obs.shape(1) != static_cast<size_t>(ns.obs_size) || mask.shape(1) != static_cast<size_t>(ns.num_actions))
                throw std::invalid_argument("the batch's arrays have the wrong shape");
            if (ns.nleaves) throw std::invalid_argument("the last batch was not backed up");
            int rows;
            {
                nb::gil_scoped_release release;
                rows = ns.descend_batch(size, obs.data(), mask.data());
            }
            if (rows < 0) throw std::invalid_argument("no deal matches this view (its counts do not add up)");
            return rows;
        }, nb::arg("size"), nb::arg("obs").noconvert(), nb::arg("mask").noconvert())
        .def("advance", [](NetSearch& ns, Rows<const float> probs, Column<const float> values, Rows<float> obs,
                           Rows<int8_t> mask) {
            if (!ns.nleaves) throw std::invalid_argument("no batch is going down: call descend_batch first");
            int rows = 0;
            for (int i = 0; i < ns.nleaves; ++i) rows += ns.leaves[i].row >= 0;
            if (probs.shape(0) < static_cast<size_t>(rows) || values.shape(0) < static_cast<size_t>(rows) ||
                (rows && probs.shape(1) != static_cast<size_t>(ns.num_actions)))
                throw std::invalid_argument("the network's answers have the wrong shape");
            if (obs.shape(0) < static_cast<size_t>(ns.nleaves) || mask.shape(0) < static_cast<size_t>(ns.nleaves) ||
                obs.shape(1) != static_cast<size_t>(ns.obs_size) || mask.shape(1) != static_cast<size_t>(ns.num_actions))
                throw std::invalid_argument("the batch's arrays have the wrong shape");
            nb::gil_scoped_release release;
            return ns.advance(probs.data(), values.data(), obs.data(), mask.data());
        }, nb::arg("probs"), nb::arg("values"), nb::arg("obs").noconvert(), nb::arg("mask").noconvert(),
           "The network's answers for the rows written; returns the rows written next (0: the batch is backed up).")
        .def("best", [](const NetSearch& ns, const std::vector<int>& legal) {
            if (legal.empty()) throw std::invalid_argument("no legal move");
            return ns.best(legal.data(), static_cast<int>(legal.size()));
        })
        .def("root_visits", [](const NetSearch& ns) {
            nb::dict out;
            for (int k = ns.nodes[0].first_child; k >= 0; k = ns.nodes[k].next_sibling)
                out[nb::int_(ns.nodes[k].action)] = ns.nodes[k].visits;
            return out;
        });

    nb::class_<Vector>(m, "VectorCore")
        .def(nb::init<const std::vector<int>&, int, int, Rows<float>, Rows<int8_t>, Column<int64_t>, Rows<float>,
                      Column<bool>, Column<bool>, int>(),
             // noconvert: an array of another dtype or layout is refused, never copied (the writes would be lost)
             nb::arg("rules"), nb::arg("num_envs"), nb::arg("max_moves"), nb::arg("obs").noconvert(),
             nb::arg("mask").noconvert(), nb::arg("seats").noconvert(), nb::arg("rewards").noconvert(),
             nb::arg("ended").noconvert(), nb::arg("truncated").noconvert(), nb::arg("threads") = 1)
        .def("seed", [](Vector& v, const std::vector<std::vector<uint32_t>>& rows) {
            if (rows.size() != static_cast<size_t>(v.core.num_envs)) throw std::invalid_argument("a seed per deal");
            for (size_t i = 0; i < rows.size(); ++i) seed_rng(v.core.rngs[i], rows[i]);
        })
        .def("reset", [](Vector& v) { v.core.reset(); }, nb::call_guard<nb::gil_scoped_release>())
        .def("check", [](Vector& v, Column<int64_t> acts) { return v.core.check(v.actions(acts)); })
        .def("play", [](Vector& v, Column<int64_t> acts, bool write) {
            const int64_t* a = v.actions(acts);
            if (v.core.check(a) >= 0) throw std::invalid_argument("an action is not legal in its deal");
            nb::gil_scoped_release release;
            v.core.play(a, write);
        })
        .def("write_rows", [](Vector& v, Column<int64_t> rows) {
            const int64_t* r = rows.data();
            size_t count = rows.shape(0);
            for (size_t k = 0; k < count; ++k)
                if (r[k] < 0 || r[k] >= v.core.num_envs) throw std::invalid_argument("row out of range");
            nb::gil_scoped_release release;
            for (int i = 0; i < v.core.num_envs; ++i) v.core.a.seats[i] = v.core.games[i].to_act;
            for (size_t k = 0; k < count; ++k) v.core.write_row(static_cast<int>(r[k]));
        })
        .def("write", [](Vector& v) { v.core.write_all(); }, nb::call_guard<nb::gil_scoped_release>())
        .def("game", [](Vector& v, int i) {
            if (i < 0 || i >= v.core.num_envs) throw std::invalid_argument("row out of range");
            return Game(v.core.games[i]);
        })
        .def_prop_ro("played", [](const Vector& v) { return v.core.played; })
        .def_prop_ro("moves", [](const Vector& v) { return v.core.moves; })
        .def_prop_ro("final_moves", [](const Vector& v) { return v.core.final_moves; });
}
