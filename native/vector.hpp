// The deals of one process stepped side by side (durak_env/vector_games.py: VectorGames), natively: one call
// plays an action in every deal, the forced moves after it, deals again where a deal ended and writes every
// deal's next decision into the caller's arrays.  No allocation after construction.
#pragma once

#include <cstring>
#include <vector>

#include "durak.hpp"

namespace durak {

// engine/loop.py: ending
enum Ending : int { PLAYING = 0, ENDED = 1, CUT = 2 };

struct Arrays {  // the caller's arrays, row-major, one row per deal (vector_games.array_shapes)
    float* obs = nullptr;
    int8_t* mask = nullptr;
    int64_t* seats = nullptr;
    float* rewards = nullptr;
    bool* ended = nullptr;
    bool* truncated = nullptr;
};

struct VectorCore {
    Rules rules;
    int num_envs, max_moves, obs_size, num_actions;
    std::vector<Game> games;
    std::vector<PyRandom> rngs;   // each row's stream of deal seeds (VectorGames._rngs)
    std::vector<int64_t> moves, final_moves;
    int64_t played = 0;
    Arrays a;

    VectorCore(const Rules& r, int envs, int limit)
        : rules(r), num_envs(envs), max_moves(limit), obs_size(observation_size(r, false)),
          num_actions(Layout::of(r.deck_size).size()), games(envs), rngs(envs), moves(envs, 0),
          final_moves(envs, 0) {}

    // VectorGames.new_deal: a deal from the row's stream, its forced opening moves played.
    void new_deal(int i) {
        PyRandom deal_rng;
        deal_rng.seed(rngs[i].getrandbits64());
        games[i].deal_seeded(rules, deal_rng, 0);
        moves[i] = settle(games[i], 0);
        played += moves[i];
    }

    // loop.settle without a chooser: the forced moves, never past the move limit; returns the deal's moves.
    int64_t settle(Game& g, int64_t done) {
        int64_t room = max_moves - done;
        return done + g.play_forced(room > 0 ? static_cast<int>(room) : 0);
    }

    int ending(const Game& g, int64_t count) const { return g.over ? ENDED : count >= max_moves ? CUT : PLAYING; }

    void reset() {
        for (int i = 0; i < num_envs; ++i) new_deal(i);
        std::memset(a.rewards, 0, sizeof(float) * num_envs * rules.num_players);
        std::memset(a.ended, 0, num_envs);
        std::memset(a.truncated, 0, num_envs);
        write_all();
    }

    // The first row whose action is not legal there, or -1 when every one is.
    int check(const int64_t* actions) {
        for (int i = 0; i < num_envs; ++i)
            if (!games[i].is_legal(actions[i])) return i;
        return -1;
    }

    // VectorGames.play: checked actions, one per deal.
    void play(const int64_t* actions, bool write) {
        const int n = rules.num_players;
        std::memset(a.rewards, 0, sizeof(float) * num_envs * n);
        std::memset(a.ended, 0, num_envs);
        std::memset(a.truncated, 0, num_envs);
        int64_t count = 0;
        for (int i = 0; i < num_envs; ++i) {
            Game& g = games[i];
            g.play(static_cast<int>(actions[i]));
            int64_t before = moves[i];
            moves[i] = settle(g, before + 1);
            count += moves[i] - before;
            int end = ending(g, moves[i]);
            if (end != PLAYING) {
                if (end == ENDED) {
                    for (int s = 0; s < n; ++s) a.rewards[i * n + s] = static_cast<float>(g.result.reward(s, n));
                    a.ended[i] = true;
                } else {
                    a.truncated[i] = true;
                }
                final_moves[i] = moves[i];
                new_deal(i);
            }
        }
        played += count;
        if (write) write_all();
        else
            for (int i = 0; i < num_envs; ++i) a.seats[i] = games[i].to_act;
    }

    void write_row(int i) {
        Game& g = games[i];
        a.seats[i] = g.to_act;
        encode(g, g.to_act, false, a.obs + static_cast<size_t>(i) * obs_size);
        int8_t* m = a.mask + static_cast<size_t>(i) * num_actions;
        std::memset(m, 0, num_actions);
        int count = g.legal_actions();
        for (int k = 0; k < count; ++k) m[g.legal[k]] = 1;
    }

    void write_all() {
        for (int i = 0; i < num_envs; ++i) write_row(i);
    }
};

}  // namespace durak
